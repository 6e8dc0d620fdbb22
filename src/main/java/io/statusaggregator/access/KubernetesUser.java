package io.statusaggregator.access;

import java.util.List;
import java.util.Map;

/**
 * A user as the API server's TokenReview names them: what a SubjectAccessReview about them must carry, groups and
 * extra included (a binding to a group, or an impersonation scope in extra, would otherwise be missed).
 */
public record KubernetesUser(String name, String uid, List<String> groups, Map<String, List<String>> extra) {
    public KubernetesUser {
        groups = List.copyOf(groups);
        extra = Map.copyOf(extra);
    }
}
