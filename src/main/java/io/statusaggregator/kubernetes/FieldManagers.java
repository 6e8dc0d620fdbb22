package io.statusaggregator.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import io.statusaggregator.model.Pure;
import java.util.Set;
import java.util.TreeSet;

/**
 * The field managers an API server records each write under ({@code metadata.managedFields}), as this application
 * tells the writers of a Cluster's status apart: itself, a person (kubectl), or another controller (EKS-A's). A real
 * API server keeps them; the Fabric8 mock API server does not.
 */
@Pure
public final class FieldManagers {
    /** The manager this application's status writes go by. */
    public static final String OWN = "status-aggregator";
    /** This application's: its own manager, and the one a real API server gave its writes before they named it. */
    public static final Set<String> THIS_APPLICATION = Set.of(OWN, "fabric8-kubernetes-client");
    /** At most this many managers are read, each name cut to this many characters: an API server's input. */
    private static final int KEPT = 8, NAME = 128;

    private FieldManagers() {
    }

    /** kubectl's managers ({@code kubectl-edit}, {@code kubectl-patch}, ...): a person's edit. */
    public static boolean person(String manager) {
        return manager.startsWith("kubectl");
    }

    /** Another controller: neither this application nor a person. */
    public static boolean otherController(String manager) {
        return !THIS_APPLICATION.contains(manager) && !person(manager);
    }

    /**
     * The managers of an object's status conditions that its {@code managedFields} name: entries of the {@code status}
     * subresource owning {@code f:status.f:conditions}; commas dropped from the names.
     */
    public static Set<String> ofStatusConditions(JsonNode managedFields) {
        Set<String> managers = new TreeSet<>();
        for (JsonNode entry : managedFields) {
            String manager = entry.path("manager").asText("").replace(",", "").strip();
            if (entry.path("subresource").asText("").equals("status") && !manager.isEmpty()
                    && entry.path("fieldsV1").path("f:status").has("f:conditions") && managers.size() < KEPT) {
                managers.add(manager.substring(0, Math.min(manager.length(), NAME)));
            }
        }
        return managers;
    }
}
