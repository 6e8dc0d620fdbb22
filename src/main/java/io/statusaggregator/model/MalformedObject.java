package io.statusaggregator.model;

/**
 * An object of a cluster that exists but cannot be read (a field of the wrong type, a negative count, a version
 * that does not parse): the rules cannot use it, and the cluster's status says so instead of computing as if it
 * were absent.
 *
 * @param problem the decoder's words, naming the field: {@code status.replicas: must not be negative, got -3}
 */
public record MalformedObject(ObjectKind kind, ObjectKey key, String problem) {
    /**
     * {@code MachineDeployment eksa-system/alpha-md-0 cannot be read: status.replicas: must not be negative, got -3}
     */
    public String describe() {
        String kindName = switch (kind) {
            case EKSA_CLUSTER -> "EKS-A Cluster";
            case CAPI_CLUSTER -> "CAPI Cluster";
            default -> kind.kind();
        };
        return kindName + " " + key + " cannot be read: " + problem;
    }
}
