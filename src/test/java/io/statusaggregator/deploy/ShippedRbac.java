package io.statusaggregator.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the shipped RBAC grants one ServiceAccount, rule by rule and verb by verb, and how the API server authorizes a
 * request against it: the request's (verb, API group, resource/subresource, namespace, name) as Kubernetes'
 * RequestInfoFactory derives them from the HTTP request, matched as the RBAC authorizer matches them. A Role grants
 * in its own namespace only; a ClusterRole bound by a ClusterRoleBinding grants in every namespace and at cluster
 * scope; resourceNames limit a rule to requests naming one of them (a list or watch names its object by the field
 * selector metadata.name; a create names none).
 */
public final class ShippedRbac {
    /** One verb on one resource of one group, where a binding grants it; {@code namespace} null: everywhere. */
    public record Grant(String binding, String namespace, String apiGroup, String resource, String verb, List<String> resourceNames) {
        public boolean allows(Request request) {
            return (namespace == null || namespace.equals(request.namespace()))
                    && (apiGroup.equals("*") || apiGroup.equals(request.apiGroup()))
                    && (resource.equals("*") || resource.equals(request.resource()))
                    && (verb.equals("*") || verb.equals(request.verb()))
                    && (resourceNames.isEmpty() || request.name() != null && resourceNames.contains(request.name()));
        }

        @Override
        public String toString() {
            return (namespace == null ? "cluster-wide" : namespace) + " " + verb + " " + (apiGroup.isEmpty() ? "core" : apiGroup) + "/"
                    + resource + (resourceNames.isEmpty() ? "" : " " + resourceNames) + " (" + binding + ")";
        }
    }

    /**
     * A request as the API server's authorizer sees it. {@code resource} includes the subresource
     * ({@code clusters/status}); {@code namespace} is null for a cluster-scoped or all-namespaces request.
     */
    public record Request(String method, String path, String verb, String apiGroup, String resource, String namespace, String name) {
        /** The request's resource attributes; empty for a non-resource URL (discovery: /api, /apis, /version...). */
        public static Optional<Request> of(String method, String pathAndQuery) {
            int q = pathAndQuery.indexOf('?');
            String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
            Map<String, String> query = query(q < 0 ? "" : pathAndQuery.substring(q + 1));
            List<String> parts = new ArrayList<>(List.of(path.replaceAll("^/+|/+$", "").split("/")));
            String group;
            if (parts.size() >= 3 && parts.get(0).equals("api")) {
                group = "";
                parts = parts.subList(2, parts.size());
            } else if (parts.size() >= 4 && parts.get(0).equals("apis")) {
                group = parts.get(1);
                parts = parts.subList(3, parts.size());
            } else {
                return Optional.empty();
            }
            boolean watchPath = parts.get(0).equals("watch"); // the deprecated /watch/ prefix
            if (watchPath) {
                parts = parts.subList(1, parts.size());
            }
            String namespace = null;
            if (parts.get(0).equals("namespaces") && parts.size() > 1) {
                namespace = parts.get(1);
                if (parts.size() > 2) {
                    parts = parts.subList(2, parts.size());
                }
            }
            String resource = parts.get(0);
            String name = parts.size() > 1 ? parts.get(1) : null;
            if (parts.size() > 2) {
                resource += "/" + String.join("/", parts.subList(2, parts.size()));
            }
            String verb = switch (method.toUpperCase(java.util.Locale.ROOT)) {
                case "GET", "HEAD" -> watchPath || isTrue(query.get("watch")) ? "watch" : name == null ? "list" : "get";
                case "POST" -> "create";
                case "PUT" -> "update";
                case "PATCH" -> "patch";
                case "DELETE" -> name == null ? "deletecollection" : "delete";
                default -> method.toLowerCase(java.util.Locale.ROOT);
            };
            if (name == null && (verb.equals("list") || verb.equals("watch"))) {
                name = exactName(query.get("fieldSelector"));
            }
            return Optional.of(new Request(method, path, verb, group, resource, namespace, name));
        }

        private static boolean isTrue(String value) {
            return "true".equalsIgnoreCase(value) || "1".equals(value);
        }

        /** metadata.name=X (or ==X) in a field selector: the API server authorizes such a list or watch as naming X. */
        private static String exactName(String selector) {
            if (selector == null) {
                return null;
            }
            for (String term : selector.split(",")) {
                String t = term.trim();
                for (String op : List.of("==", "=")) {
                    if (t.startsWith("metadata.name" + op)) {
                        return t.substring(("metadata.name" + op).length());
                    }
                }
            }
            return null;
        }

        private static Map<String, String> query(String query) {
            Map<String, String> values = new LinkedHashMap<>();
            for (String pair : query.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                values.put(key, value);
            }
            return values;
        }

        /** (verb, group, resource, namespace, name), as the tables print it. */
        public String attributes() {
            return verb + " " + (apiGroup.isEmpty() ? "core" : apiGroup) + "/" + resource + " in "
                    + (namespace == null ? "(all namespaces)" : namespace) + (name == null ? "" : " name " + name);
        }
    }

    private final List<Grant> grants;

    private ShippedRbac(List<Grant> grants) {
        this.grants = grants;
    }

    public List<Grant> grants() {
        return grants;
    }

    public boolean allows(Request request) {
        return grants.stream().anyMatch(g -> g.allows(request));
    }

    /** Everything the bindings in {@code manifests} grant the ServiceAccount {@code namespace/name}. */
    public static ShippedRbac of(Manifests manifests, String namespace, String name) {
        List<Grant> grants = new ArrayList<>();
        for (String bindingKind : List.of("ClusterRoleBinding", "RoleBinding")) {
            manifests.ofKind(bindingKind).forEach(binding -> {
                boolean bound = false;
                for (JsonNode subject : binding.path("subjects")) {
                    bound |= "ServiceAccount".equals(subject.path("kind").asText()) && name.equals(subject.path("name").asText())
                            && namespace.equals(subject.path("namespace").asText(Manifests.namespace(binding)));
                }
                if (!bound) {
                    return;
                }
                String scope = bindingKind.equals("ClusterRoleBinding") ? null : Manifests.namespace(binding);
                JsonNode ref = binding.path("roleRef");
                String roleKind = ref.path("kind").asText();
                JsonNode role = roleKind.equals("ClusterRole") ? manifests.get("ClusterRole", ref.path("name").asText())
                        : manifests.ofKind("Role").filter(r -> r.path("metadata").path("name").asText().equals(ref.path("name").asText())
                                && scope.equals(Manifests.namespace(r))).findFirst()
                                .orElseThrow(() -> new AssertionError(bindingKind + " " + binding.path("metadata").path("name").asText()
                                        + " names Role " + ref.path("name").asText() + ", which is not in namespace " + scope));
                String label = bindingKind + " " + (scope == null ? "" : scope + "/") + binding.path("metadata").path("name").asText()
                        + " -> " + roleKind + " " + ref.path("name").asText();
                for (JsonNode rule : role.path("rules")) {
                    List<String> names = strings(rule.path("resourceNames"));
                    for (String group : strings(rule.path("apiGroups"))) {
                        for (String resource : strings(rule.path("resources"))) {
                            for (String verb : strings(rule.path("verbs"))) {
                                grants.add(new Grant(label, scope, group, resource, verb, names));
                            }
                        }
                    }
                    if (rule.has("nonResourceURLs")) {
                        grants.add(new Grant(label, scope, "", "nonResourceURLs " + rule.path("nonResourceURLs"), "?", List.of()));
                    }
                }
            });
        }
        return new ShippedRbac(grants);
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(v -> values.add(v.asText()));
        return values;
    }
}
