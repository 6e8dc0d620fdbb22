package io.statusaggregator.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.util.List;
import java.util.Optional;

/**
 * What the CNI observer accepts of a workload cluster's kubeconfig secret: credentials written into it, as Cluster
 * API writes them (a client certificate and key, or a token, and the cluster's CA), and nothing that makes the
 * aggregator run a command ({@code exec}, {@code auth-provider}) or read a file of its own pod ({@code tokenFile},
 * {@code client-certificate}, {@code client-key}, {@code certificate-authority}): whoever may write a secret in the
 * CAPI namespace must not thereby run code in the aggregator or send its files to a server of their choosing.
 */
final class WorkloadKubeconfig {
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final List<String> USER_REFUSED =
            List.of("exec", "auth-provider", "tokenFile", "client-certificate", "client-key");
    private static final List<String> CLUSTER_REFUSED = List.of("certificate-authority");

    private WorkloadKubeconfig() {
    }

    /**
     * Why {@code text} is refused, naming fields only (never their values); empty when it may be used, or is no
     * kubeconfig at all (which the kubeconfig reader then says).
     */
    static Optional<String> refusal(String text) {
        JsonNode config;
        try {
            config = YAML.readTree(text);
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
        if (config == null || !config.isObject()) {
            return Optional.empty();
        }
        for (JsonNode user : config.path("users")) {
            for (String field : USER_REFUSED) {
                if (user.path("user").has(field)) {
                    return Optional.of(
                            "its user has " + field + ", and only credentials written into the kubeconfig are used");
                }
            }
        }
        for (JsonNode cluster : config.path("clusters")) {
            for (String field : CLUSTER_REFUSED) {
                if (cluster.path("cluster").has(field)) {
                    return Optional.of(
                            "its cluster has " + field + ", and only a CA written into the kubeconfig is used");
                }
            }
        }
        return Optional.empty();
    }
}
