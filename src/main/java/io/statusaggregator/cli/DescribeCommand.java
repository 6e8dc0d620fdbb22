package io.statusaggregator.cli;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.quarkus.arc.Unremovable;
import io.statusaggregator.describe.ClusterObjects;
import io.statusaggregator.describe.ClusterTree;
import io.statusaggregator.model.ObjectKey;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Dependent
@Unremovable
@Command(
        name = "describe",
        mixinStandardHelpOptions = true,
        header = "Show a cluster as a tree of its objects and their readiness.",
        description = {
            "Shows the EKS-A Cluster, its control plane (the KubeadmControlPlane and its Machines), its workers (each "
                    + "worker node group's MachineDeployment and its Machines), its external etcd and its CNI, each "
                    + "with its readiness, severity, reason, age and message, as clusterctl describe cluster does. "
                    + "Reads them through the kubeconfig (KUBECONFIG, ~/.kube/config) or the in-cluster account.",
            "",
            "Exit status: 0 when the Cluster is Ready, 1 when it is not or cannot be read, 2 for a bad argument."
        })
public class DescribeCommand implements Callable<Integer> {
    static final int NOT_READY = 1;
    static final int BAD_ARGUMENT = 2;

    @Parameters(paramLabel = "NAMESPACE/NAME", description = "The EKS-A Cluster.")
    String cluster;

    @Option(
            names = "--grouping",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description =
                    "Show a group's Machines that are alike (readiness, severity, reason, phase, version, node health)"
                            + " as one line. Default: ${DEFAULT-VALUE}.")
    boolean grouping;

    @Option(
            names = "--all",
            description = "Show every object on a line of its own: each Machine, the CAPI Cluster, and each "
                    + "condition of the EKS-A Cluster.")
    boolean all;

    @Inject
    CommandSettings settings;

    @Override
    public Integer call() {
        Optional<String> problem = ObjectKey.problemOf(cluster);
        if (problem.isPresent()) {
            System.err.println("error: describe takes NAMESPACE/NAME: " + problem.get());
            return BAD_ARGUMENT;
        }
        ObjectKey key = ObjectKey.parse(cluster).orElseThrow();
        ClusterObjects objects = new ClusterObjects(settings.kubernetesClient(), settings.capiNamespace());
        try {
            Optional<ClusterObjects.Found> found = objects.read(key);
            if (found.isEmpty()) {
                System.err.println("error: EKS-A Cluster " + key + " not found");
                return NOT_READY;
            }
            List<ClusterTree.Line> tree = found.get().tree(new ClusterTree.Options(grouping, all), Instant.now());
            System.out.print(ClusterTree.render(tree));
            return "True".equals(tree.get(0).ready()) ? 0 : NOT_READY;
        } catch (KubernetesClientException e) {
            System.err.println("error: " + ApiServerFailure.describe(objects.apiServer(), e));
            return NOT_READY;
        }
    }
}
