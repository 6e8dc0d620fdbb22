package io.statusaggregator.access;

import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Pure;
import java.io.ByteArrayOutputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the Kubernetes authorizer must allow before a request is served, decided from its path alone: the question a
 * SubjectAccessReview asks. The mapping follows what each route shows: the metrics are a non-resource URL, as
 * controller-runtime's are; the upgrade check shows one Cluster, so it needs {@code get} on that Cluster; the fleet
 * page shows every Cluster, so it needs {@code list} on Clusters in every namespace. Health (the kubelet's probes),
 * the admission webhook (the API server's call) and the sign-in page need nothing; any other path a signed-in user.
 *
 * <p>The path is read as the REST layer routes it: empty segments (a doubled or trailing slash) do not count, and
 * percent-encoded characters are the characters. A path with a {@code ;} is refused to everyone: the REST layer drops
 * a segment's {@code ;parameters} before it routes, so {@code /fleet;x/clusters} would be served as
 * {@code /fleet/clusters} while it looks like another path here.
 */
@Pure
public sealed interface RequiredAccess {
    String EKSA_GROUP = "anywhere.eks.amazonaws.com";
    String CLUSTERS = "clusters";
    String METRICS_PATH = "/q/metrics";

    /** Served to anyone. */
    record Open() implements RequiredAccess {
    }

    /** Served to no one: a path that would be routed as another (see above). */
    record Nobody() implements RequiredAccess {
    }

    /**
     * Any authenticated user: an upgrade check whose names are no Kubernetes names names no Cluster to authorize, and
     * its answer (400 and why) tells nothing of the fleet.
     */
    record AnyUser() implements RequiredAccess {
    }

    /** A verb on a resource: {@code namespace} and {@code name} empty for every namespace and every object. */
    record OnResource(String verb, String group, String resource, String namespace, String name)
            implements RequiredAccess {}

    /** A verb on a path that is no resource (RBAC's {@code nonResourceURLs}). */
    record OnUrl(String verb, String path) implements RequiredAccess {
    }

    RequiredAccess OPEN = new Open();
    RequiredAccess NOBODY = new Nobody();
    RequiredAccess ANY_USER = new AnyUser();
    /** What the fleet page needs: it shows every Cluster. */
    RequiredAccess LIST_CLUSTERS = new OnResource("list", EKSA_GROUP, CLUSTERS, "", "");

    /** The access a request for {@code path} (normalized: no {@code .} or {@code ..} segments) needs. */
    static RequiredAccess of(String path) {
        if (path == null) {
            return ANY_USER;
        }
        if (path.indexOf(';') >= 0) {
            return NOBODY;
        }
        List<String> segments = new ArrayList<>();
        for (String segment : path.split("/")) {
            if (!segment.isEmpty()) {
                segments.add(segment);
            }
        }
        String first = segments.isEmpty() ? "" : decoded(segments.get(0)).orElse("");
        String second = segments.size() < 2 ? "" : decoded(segments.get(1)).orElse("");
        return switch (first) {
            case "", "index.html", "fleet" -> LIST_CLUSTERS;
            case "q" ->
                second.equals("metrics") ? new OnUrl("get", METRICS_PATH) : second.equals("health") ? OPEN : ANY_USER;
            case "upgrade-check" -> segments.size() == 3 ? cluster(segments.get(1), segments.get(2)) : ANY_USER;
            case "admission" -> segments.size() == 2 && second.equals("clusters") ? OPEN : ANY_USER;
            case "sign-in", "sign-out" -> segments.size() == 1 ? OPEN : ANY_USER;
            default -> ANY_USER;
        };
    }

    /** {@code get} on the Cluster the two segments name; any user when they name none (the endpoint answers 400). */
    private static RequiredAccess cluster(String namespaceSegment, String nameSegment) {
        Optional<String> namespace = decoded(namespaceSegment);
        Optional<String> name = decoded(nameSegment);
        if (namespace.isEmpty() || name.isEmpty() || ObjectKey.problemOf(namespace.get(), name.get()).isPresent()) {
            return ANY_USER;
        }
        return new OnResource("get", EKSA_GROUP, CLUSTERS, namespace.get(), name.get());
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
            return Optional.of(StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }
}
