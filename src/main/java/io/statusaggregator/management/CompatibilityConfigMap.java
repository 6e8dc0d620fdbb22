package io.statusaggregator.management;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.statusaggregator.threads.DaemonThreads;
import io.statusaggregator.kubernetes.StalledWatchGuard;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * The compatibility data in force: the document shipped in the application, replaced at run time by the one in a
 * ConfigMap (key {@code compatibility.yaml}) while that ConfigMap exists and holds a valid document. A change takes
 * effect without a restart; a document that does not read is logged and the data in force kept.
 */
public final class CompatibilityConfigMap implements Supplier<Compatibility>, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(CompatibilityConfigMap.class);
    public static final String KEY = "compatibility.yaml";

    private final Compatibility builtIn;
    private final AtomicReference<Compatibility> inForce;
    private StalledWatchGuard.GuardedInformer<ConfigMap> informer;

    public CompatibilityConfigMap(Compatibility builtIn) {
        this.builtIn = builtIn;
        this.inForce = new AtomicReference<>(builtIn);
    }

    @Override
    public Compatibility get() {
        return inForce.get();
    }

    /**
     * Follows the ConfigMap {@code namespace/name}.
     *
     * @param relistStalledAfter how long the informer may go without a running watch before it is replaced (see
     *                           {@link StalledWatchGuard})
     * @param guardThread        where the guard looks every second; the caller's, which it shuts down
     */
    public void watch(KubernetesClient client, String namespace, String name, Duration relistStalledAfter,
            ScheduledExecutorService guardThread) {
        ResourceEventHandler<ConfigMap> changes = new ResourceEventHandler<>() {
            @Override
            public void onAdd(ConfigMap map) {
                read(map, namespace + "/" + name);
            }

            @Override
            public void onUpdate(ConfigMap before, ConfigMap after) {
                read(after, namespace + "/" + name);
            }

            @Override
            public void onDelete(ConfigMap map, boolean unknown) {
                inForce.set(builtIn);
                LOG.infof("ConfigMap %s/%s deleted: the built-in compatibility data (version %s) is in force again",
                        namespace, name, builtIn.version());
            }
        };
        informer = new StalledWatchGuard(relistStalledAfter, guardThread).guard("configmap " + namespace + "/" + name,
                () -> client.configMaps().inNamespace(namespace).withName(name).runnableInformer(0), changes);
        informer.start();
    }

    /** Reads the ConfigMap {@code namespace/name} once, for a command that does not run long enough to follow it. */
    public CompatibilityConfigMap readOnce(KubernetesClient client, String namespace, String name) {
        ConfigMap map = client.configMaps().inNamespace(namespace).withName(name).get();
        if (map != null) {
            read(map, namespace + "/" + name);
        }
        return this;
    }

    private void read(ConfigMap map, String where) {
        String text = map.getData() == null ? null : map.getData().get(KEY);
        if (text == null) {
            LOG.errorf(
                    "ConfigMap %s has no key %s: the compatibility data in force (version %s) is kept",
                    where, KEY, inForce.get().version());
            return;
        }
        try {
            Compatibility document = CompatibilityReader.read(new YAMLMapper().readTree(text));
            inForce.set(document);
            LOG.infof("compatibility data version %s from ConfigMap %s is in force", document.version(), where);
        } catch (Exception e) {
            LOG.errorf(
                    "ConfigMap %s does not hold a valid compatibility document (%s): the data in force (version %s) is"
                            + " kept",
                    where, e.getMessage(), inForce.get().version());
        }
    }

    @Override
    public void close() {
        if (informer != null) {
            informer.close();
        }
    }
}
