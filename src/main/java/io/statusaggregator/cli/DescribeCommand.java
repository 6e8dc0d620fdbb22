package io.statusaggregator.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.quarkus.arc.Unremovable;
import io.statusaggregator.AggregatorConfig;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.ObjectDecoder;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Dependent
@Unremovable
@Command(name = "describe",
        mixinStandardHelpOptions = true,
        header = "Show a cluster as a tree of its objects and their readiness.",
        description = {
                "Shows the EKS-A Cluster, its control plane (the KubeadmControlPlane and its Machines), its workers (each "
                        + "worker node group's MachineDeployment and its Machines), its external etcd and its CNI, each "
                        + "with its readiness, severity, reason, age and message, as clusterctl describe cluster does. "
                        + "Reads them through the kubeconfig (KUBECONFIG, ~/.kube/config) or the in-cluster account.",
                "",
                "Exit status: 0 when the Cluster is Ready, 1 when it is not or cannot be read, 2 for a bad argument."})
public class DescribeCommand implements Callable<Integer> {
    static final int NOT_READY = 1;
    static final int BAD_ARGUMENT = 2;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<ObjectKind> CAPI_KINDS = List.of(ObjectKind.CAPI_CLUSTER, ObjectKind.KUBEADM_CONTROL_PLANE,
            ObjectKind.MACHINE_DEPLOYMENT, ObjectKind.MACHINE, ObjectKind.ETCDADM_CLUSTER);
    /** The names EKS-A gives a cluster's one-of-a-kind objects: the cluster's name and this. */
    private static final java.util.Map<ObjectKind, String> NAMED = java.util.Map.of(ObjectKind.CAPI_CLUSTER, "",
            ObjectKind.KUBEADM_CONTROL_PLANE, "", ObjectKind.ETCDADM_CLUSTER, "-etcd");

    @Parameters(paramLabel = "NAMESPACE/NAME", description = "The EKS-A Cluster.")
    String cluster;

    @Option(names = "--grouping", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Show a group's Machines that are alike (readiness, reason, phase, version) as one line. Default: ${DEFAULT-VALUE}.")
    boolean grouping;

    @Option(names = "--all", description = "Show every object on a line of its own: each Machine, the CAPI Cluster, and each "
            + "condition of the EKS-A Cluster.")
    boolean all;

    @Inject
    AggregatorConfig config;

    @Inject
    Instance<KubernetesClient> client;

    @Override
    public Integer call() {
        java.util.Optional<String> problem = ObjectKey.problemOf(cluster);
        if (problem.isPresent()) {
            System.err.println("error: describe takes NAMESPACE/NAME: " + problem.get());
            return BAD_ARGUMENT;
        }
        ObjectKey key = ObjectKey.parse(cluster).orElseThrow();
        KubernetesClient api = client.get();
        try {
            GenericKubernetesResource found = api.genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER))
                    .inNamespace(key.namespace()).withName(key.name()).get();
            if (found == null) {
                System.err.println("error: EKS-A Cluster " + key + " not found");
                return NOT_READY;
            }
            JsonNode eksa = JSON.valueToTree(found);
            List<JsonNode> capi = new ArrayList<>();
            for (ObjectKind kind : CAPI_KINDS) {
                List<GenericKubernetesResource> labelled = api.genericKubernetesResources(KubernetesResources.of(kind))
                        .inNamespace(config.capiNamespace()).withLabel(ObjectDecoder.CLUSTER_NAME_LABEL, key.name()).list().getItems();
                labelled.forEach(o -> capi.add(JSON.valueToTree(o)));
                if (labelled.isEmpty() && NAMED.containsKey(kind)) {
                    // Objects EKS-A names after the cluster need not carry the label. Listed, not read by name: the
                    // application's Role lists these kinds and gets none, and this command may run with it in a pod.
                    api.genericKubernetesResources(KubernetesResources.of(kind)).inNamespace(config.capiNamespace()).list().getItems()
                            .stream().filter(o -> o.getMetadata().getName().equals(key.name() + NAMED.get(kind)))
                            .forEach(o -> capi.add(JSON.valueToTree(o)));
                }
            }
            List<ClusterTree.Line> tree = ClusterTree.of(eksa, capi, new ClusterTree.Options(grouping, all), Instant.now());
            System.out.print(ClusterTree.render(tree));
            return "True".equals(tree.get(0).ready()) ? 0 : NOT_READY;
        } catch (KubernetesClientException e) {
            System.err.println("error: cannot read from the Kubernetes API at " + api.getConfiguration().getMasterUrl() + ": "
                    + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()));
            return NOT_READY;
        }
    }
}
