package io.statusaggregator.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.quarkus.arc.Unremovable;
import io.statusaggregator.AggregatorConfig;
import io.statusaggregator.management.CompatibilityConfigMap;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.preflight.UpgradeCheck;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.versions.UpgradePlan;
import io.statusaggregator.versions.json.CompatibilityReader;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Dependent
@Unremovable
@Command(name = "upgrade-check",
        mixinStandardHelpOptions = true,
        header = "Plan a cluster's upgrade, one minor version at a time.",
        description = {
                "Lists what upgrading a cluster would change (EKS-A, Cilium, Kubernetes per worker node group) and "
                        + "the steps, in order. Reads the Cluster and the EKSARelease objects through the kubeconfig "
                        + "(KUBECONFIG, ~/.kube/config) or the in-cluster account.",
                "",
                "Exit status: 0 with a plan (or \"up to date\"), 1 when the Cluster or the API cannot be read, 2 "
                        + "when the target is unknown or cannot be reached."})
public class UpgradeCheckCommand implements Callable<Integer> {
    static final int UNREADABLE = 1;
    static final int UNREACHABLE = 2;

    @Option(names = "--cluster", required = true, paramLabel = "NAMESPACE/NAME", description = "The EKS-A Cluster.")
    String cluster;

    @Option(
            names = "--to",
            paramLabel = "VERSION",
            description =
                    "An EKS-A version (v0.24.2) or a Kubernetes version (1.29); by default the newest release of the"
                            + " next EKS-A minor.")
    String to;

    @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "FORMAT",
            description = "text or json (the HTTP endpoint's answer). Default: ${DEFAULT-VALUE}.")
    String output;

    @Inject
    CommandSettings settings;

    @Override
    public Integer call() {
        Optional<String> problem = ObjectKey.problemOf(cluster);
        if (problem.isPresent()) {
            System.err.println("error: --cluster takes NAMESPACE/NAME: " + problem.get());
            return UNREACHABLE;
        }
        Optional<ObjectKey> parsed = ObjectKey.parse(cluster);
        if (!output.equals("text") && !output.equals("json")) {
            System.err.println("error: --output takes text or json, got \"" + output + "\"");
            return UNREACHABLE;
        }
        ObjectKey key = parsed.get();
        KubernetesClient api = settings.kubernetesClient();
        try {
            Compatibility compatibility = settings.compatibilityConfigMap()
                    .map(name -> new CompatibilityConfigMap(CompatibilityReader.builtIn())
                            .readOnce(api, settings.capiNamespace(), name)
                            .get())
                    .orElseGet(CompatibilityReader::builtIn);
            UpgradePlan plan = UpgradeCheck.plan(UpgradeCheck.readCluster(api, key),
                    UpgradeCheck.readReleases(api, settings.capiNamespace()), compatibility, Optional.ofNullable(to));
            System.out.print(
                    output.equals("json")
                            ? UpgradeCheck.toJson(key, plan).toPrettyString() + "\n"
                            : UpgradeCheck.toText(key, plan));
            return 0;
        } catch (UpgradePlan.UnreachableTarget e) {
            System.err.println("error: " + e.getMessage());
            return UNREACHABLE;
        } catch (UpgradeCheck.ClusterNotFound | MalformedObjectException e) {
            System.err.println("error: " + e.getMessage());
            return UNREADABLE;
        } catch (KubernetesClientException e) {
            System.err.println("error: " + ApiServerFailure.describe(api.getConfiguration().getMasterUrl(), e));
            return UNREADABLE;
        }
    }
}
