package io.statusaggregator.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;

/**
 * What {@code compute}, {@code describe} and {@code upgrade-check} read besides their arguments: two settings and the
 * Kubernetes API. Injected when Quarkus runs the command ({@link InjectedSettings}); read without Quarkus when the
 * command runs alone ({@link StandaloneSettings}, see {@link LightCommands}).
 */
interface CommandSettings {
    /** {@code aggregator.capi-namespace}. */
    String capiNamespace();

    /** {@code aggregator.compatibility.configmap}. */
    Optional<String> compatibilityConfigMap();

    /** The Kubernetes API the kubeconfig (or the in-cluster account) names; made when first asked for. */
    KubernetesClient kubernetesClient();
}
