package io.statusaggregator.access;

import io.statusaggregator.model.ObjectKey;
import java.io.ByteArrayOutputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * What the Kubernetes authorizer must allow before a request is served, decided from its path alone: the question a
 * SubjectAccessReview asks. The mapping follows what each route shows: the metrics are a non-resource URL, as
 * controller-runtime's are; the upgrade check shows one Cluster, so it needs {@code get} on that Cluster; the fleet
 * page shows every Cluster, so it needs {@code list} on Clusters in every namespace. Health (the kubelet's probes),
 * the admission webhook (the API server's call) and the sign-in page need nothing.
 */
public sealed interface RequiredAccess {
    String EKSA_GROUP = "anywhere.eks.amazonaws.com";
    String CLUSTERS = "clusters";
    String METRICS_PATH = "/q/metrics";

    /** Served to anyone. */
    record Open() implements RequiredAccess {
    }

    /**
     * Any authenticated user: an upgrade check whose names are no Kubernetes names names no Cluster to authorize, and
     * its answer (400 and why) tells nothing of the fleet.
     */
    record AnyUser() implements RequiredAccess {
    }

    /** A verb on a resource: {@code namespace} and {@code name} empty for every namespace and every object. */
    record OnResource(String verb, String group, String resource, String namespace, String name) implements RequiredAccess {
    }

    /** A verb on a path that is no resource (RBAC's {@code nonResourceURLs}). */
    record OnUrl(String verb, String path) implements RequiredAccess {
    }

    RequiredAccess OPEN = new Open();
    RequiredAccess ANY_USER = new AnyUser();
    /** What the fleet page needs: it shows every Cluster. */
    RequiredAccess LIST_CLUSTERS = new OnResource("list", EKSA_GROUP, CLUSTERS, "", "");

    /** The access a request for {@code path} (normalized: no {@code .} or {@code ..} segments) needs. */
    static RequiredAccess of(String path) {
        if (path == null) {
            return ANY_USER;
        }
        if (path.equals(METRICS_PATH) || path.startsWith(METRICS_PATH + "/")) {
            return new OnUrl("get", METRICS_PATH);
        }
        if (path.startsWith("/upgrade-check/")) {
            String[] segments = path.substring("/upgrade-check/".length()).split("/", -1);
            if (segments.length != 2) {
                return ANY_USER;
            }
            Optional<String> namespace = decoded(segments[0]);
            Optional<String> name = decoded(segments[1]);
            if (namespace.isEmpty() || name.isEmpty() || ObjectKey.problemOf(namespace.get(), name.get()).isPresent()) {
                return ANY_USER;
            }
            return new OnResource("get", EKSA_GROUP, CLUSTERS, namespace.get(), name.get());
        }
        if (path.equals("/upgrade-check")) {
            return ANY_USER;
        }
        if (path.equals("/") || path.equals("/index.html") || path.equals("/fleet") || path.startsWith("/fleet/")) {
            return LIST_CLUSTERS;
        }
        return OPEN;
    }

    /** A path segment percent-decoded as the HTTP layer decodes path parameters; empty when it is no UTF-8. */
    private static Optional<String> decoded(String segment) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(segment.length());
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c == '%') {
                if (i + 2 >= segment.length()) {
                    return Optional.empty();
                }
                int high = Character.digit(segment.charAt(i + 1), 16);
                int low = Character.digit(segment.charAt(i + 2), 16);
                if (high < 0 || low < 0) {
                    return Optional.empty();
                }
                bytes.write(high * 16 + low);
                i += 2;
            } else if (c < 0x80) {
                bytes.write(c);
            } else {
                int codePoint = segment.codePointAt(i);
                byte[] utf8 = new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8);
                bytes.write(utf8, 0, utf8.length);
                i += Character.charCount(codePoint) - 1;
            }
        }
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray())).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }
}
