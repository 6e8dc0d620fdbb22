package io.statusaggregator.embedded;

import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.statusaggregator.model.ObjectKind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The API versions the embedded API serves each kind at, as a real API server serves a CRD's versions: the Cluster
 * API kinds that have a {@code v1beta2} ({@link ObjectKind#versions()}) at {@code v1beta1} only (Cluster API up to
 * v1.10), at both (v1.11 to v1.15) or at {@code v1beta2} only (v1.16 on), changed while it runs to play a Cluster API
 * upgrade; every other kind at its one version. A request for a kind at a version not served is answered 404, as a
 * real API server answers it.
 *
 * <p>Unlike a real API server, which keeps one object and converts it to the version asked for (Cluster API's
 * conversion webhook), Fabric8's mock server keeps objects per version path and converts nothing: an object written
 * at {@code v1beta1} is not found at {@code v1beta2}. Whoever writes the objects writes them at the versions served.
 */
final class ServedVersions {
    /**
     * A Cluster API v1.10 management cluster's: what the tests that write their own CAPI objects at {@code v1beta1}
     * read them back at (the embedded default chooses its own: {@code aggregator.embedded.capi-api-version}).
     */
    static final List<String> V1BETA1_ONLY = List.of("v1beta1");
    private static final List<String> CAPI = List.of("v1beta2", "v1beta1");
    /** {@code /apis/GROUP/VERSION[/namespaces/NS]/PLURAL...}. */
    private static final Pattern RESOURCE_PATH =
            Pattern.compile("/apis/([^/]+)/([^/]+)(?:/namespaces/[^/]+)?/([^/?]+).*");

    /** {@code /apis/GROUP/VERSION}, a group's discovery document at one version. */
    private static final Pattern GROUP_VERSION = Pattern.compile("/apis/([^/]+)/([^/?]+)/?(?:\\?.*)?");

    private volatile List<String> capi;
    private volatile boolean acceptingEvery;

    ServedVersions(List<String> capi) {
        this.capi = checked(capi);
    }

    /** Serves the Cluster API kinds at {@code versions} from now on, newest first. */
    void serveCapi(List<String> versions) {
        capi = checked(versions);
    }

    /**
     * Accepts requests at every version of the kinds while {@code writing} runs, discovery unchanged: the objects
     * written at a version before it is served, as a real server holds them the moment it serves that version.
     */
    void acceptingEveryVersion(Runnable writing) {
        acceptingEvery = true;
        try {
            writing.run();
        } finally {
            acceptingEvery = false;
        }
    }

    private static List<String> checked(List<String> versions) {
        if (versions.isEmpty() || !CAPI.containsAll(versions)) {
            throw new IllegalArgumentException("Cluster API versions served must be some of " + CAPI + ", are "
                    + versions);
        }
        return CAPI.stream().filter(versions::contains).toList();
    }

    /** The kinds the embedded API serves. */
    static List<ObjectKind> kinds() {
        return Arrays.stream(ObjectKind.values()).filter(k -> k != ObjectKind.CNI_OBSERVATION).toList();
    }

    /** The versions {@code kind} is served at, newest first. */
    List<String> of(ObjectKind kind) {
        return kind.versions().containsAll(CAPI) ? capi : List.of(kind.version());
    }

    /**
     * Whether {@code path} asks for one of the kinds at a version not served now, or for the discovery document of a
     * group at a version at which it serves none of them.
     */
    boolean refuses(String path) {
        if (acceptingEvery) {
            return false;
        }
        Matcher groupVersion = GROUP_VERSION.matcher(path);
        if (groupVersion.matches()) {
            List<ObjectKind> ofGroup = kinds().stream().filter(kind -> kind.group().equals(groupVersion.group(1))
                    && kind.versions().contains(groupVersion.group(2))).toList();
            return !ofGroup.isEmpty() && ofGroup.stream().noneMatch(kind -> of(kind).contains(groupVersion.group(2)));
        }
        Matcher resource = RESOURCE_PATH.matcher(path);
        if (!resource.matches()) {
            return false;
        }
        String plural = resource.group(3);
        return kinds().stream().anyMatch(kind -> kind.group().equals(resource.group(1)) && kind.plural().equals(plural)
                && kind.versions().contains(resource.group(2)) && !of(kind).contains(resource.group(2)));
    }

    /**
     * The mock server's view of every version of every kind, with its status subresource: it finds a CRD's status
     * subresource for the CRD's storage version only, and a status written at another version would not be kept apart.
     */
    static List<CustomResourceDefinitionContext> contexts() {
        List<CustomResourceDefinitionContext> contexts = new ArrayList<>();
        for (ObjectKind kind : kinds()) {
            for (String version : kind.versions()) {
                contexts.add(new CustomResourceDefinitionContext.Builder().withGroup(kind.group()).withVersion(version)
                        .withKind(kind.kind()).withPlural(kind.plural()).withScope("Namespaced")
                        .withStatusSubresource(true).build());
            }
        }
        return contexts;
    }
}
