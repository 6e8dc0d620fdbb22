package io.statusaggregator.embedded;

import io.statusaggregator.kubernetes.KubernetesResources;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.statusaggregator.model.ObjectKind;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An API server restart as a server that compacted its history: every watch ends, and a watch from a resourceVersion
 * before the restart is refused with 410 Gone, as a real server refuses one it no longer has. (The embedded server keeps
 * its latest deletions across a restart, and would resume such a watch: this is the case where history is gone.)
 */
public final class ForgetfulRestart {
    private static final ResourceDefinitionContext ANY_KIND = KubernetesResources.of(ObjectKind.EKSA_CLUSTER);
    private static final Pattern FROM_VERSION = Pattern.compile("[?&]resourceVersion=([0-9]+)");

    private ForgetfulRestart() {
    }

    /** Restarts {@code kubernetes} so; returns the count of watches refused from then on. */
    public static AtomicInteger restart(EmbeddedKubernetes kubernetes) {
        long restartedAt = Long.parseLong(kubernetes.client().genericKubernetesResources(ANY_KIND)
                .inAnyNamespace().list().getMetadata().getResourceVersion());
        AtomicInteger refused = new AtomicInteger();
        kubernetes.answerInstead(request -> {
            Matcher from = FROM_VERSION.matcher(request.getPath());
            if (request.getPath().contains("watch=true") && from.find() && Long.parseLong(from.group(1)) <= restartedAt) {
                refused.incrementAndGet();
                return ResumableWatches.expired(Long.parseLong(from.group(1)));
            }
            return null;
        });
        kubernetes.restart();
        // A write after the restart: a list made from now on names a newer version than any watch refused above, as
        // a real server's would (it accepts a watch from the version its own list just gave). Without it, a fresh
        // informer listing before anything changed got its first watch refused too.
        kubernetes.client().configMaps().inNamespace("forgetful-restart").resource(new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                .withNewMetadata().withGenerateName("restarted-").withNamespace("forgetful-restart").endMetadata().build()).create();
        return refused;
    }
}
