package io.statusaggregator.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.statusaggregator.AggregatorConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.Optional;

/** {@link CommandSettings} from Quarkus: the application's configuration and its Kubernetes client. */
@ApplicationScoped
class InjectedSettings implements CommandSettings {
    @Inject
    AggregatorConfig config;

    @Inject
    Instance<KubernetesClient> client;

    @Override
    public String capiNamespace() {
        return config.capiNamespace();
    }

    @Override
    public Optional<String> compatibilityConfigMap() {
        return config.compatibilityConfigMap();
    }

    @Override
    public KubernetesClient kubernetesClient() {
        return client.get();
    }
}
