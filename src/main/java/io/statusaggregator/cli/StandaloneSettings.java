package io.statusaggregator.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.kubernetes.client.runtime.internal.KubernetesClientUtils;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * {@link CommandSettings} read without starting Quarkus: the settings from the same sources Quarkus reads (system
 * properties, environment, {@code application.properties}), the client by Quarkus' own helper, which reads the
 * kubeconfig and the {@code quarkus.kubernetes-client.*} settings as the injected client does.
 */
final class StandaloneSettings implements CommandSettings, AutoCloseable {
    private Config config;
    private KubernetesClient client;

    private Config config() {
        if (config == null) {
            config = ConfigProvider.getConfig();
        }
        return config;
    }

    @Override
    public String capiNamespace() {
        return config().getOptionalValue("aggregator.capi-namespace", String.class).orElse("eksa-system");
    }

    @Override
    public Optional<String> compatibilityConfigMap() {
        return config().getOptionalValue("aggregator.compatibility.configmap", String.class);
    }

    @Override
    public KubernetesClient kubernetesClient() {
        if (client == null) {
            config();
            client = KubernetesClientUtils.createClient();
        }
        return client;
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
    }
}
