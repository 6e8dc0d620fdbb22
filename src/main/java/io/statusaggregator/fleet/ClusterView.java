package io.statusaggregator.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.statusaggregator.describe.ClusterObjects;
import io.statusaggregator.describe.ClusterTree;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.threads.DaemonThreads;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jboss.logging.Logger;

/**
 * The fleet page's cluster view: one cluster as the tree {@code describe} prints, read from the Kubernetes API when
 * asked (the page's feeds carry statuses, not the CAPI objects). The API client retries for minutes when the server
 * is away, so reads run on a few threads of their own and a caller waits {@link #API_DEADLINE} at most. A singleton
 * that {@code run} starts with the pipeline's client, as it starts {@link FleetPage}.
 */
@Singleton
public class ClusterView {
    private static final Logger LOG = Logger.getLogger(ClusterView.class);
    static final Duration API_DEADLINE = Duration.ofSeconds(10);

    /** What a request for a tree comes to. */
    public sealed interface Answer {
        record Tree(ObjectNode body) implements Answer {
        }

        record NotFound(String message) implements Answer {
        }

        /** The API server unreachable, too slow, or too many reads at once: try again. */
        record Unavailable(String message) implements Answer {
        }

        /** Anything else: the log has it, the browser a line. */
        record Failed(String message) implements Answer {
        }
    }

    private final Clock clock;
    private volatile ClusterObjects objects;
    /** Two reads at once, 16 waiting: a tree is a handful of list calls, and a page opens one at a time. */
    private final ThreadPoolExecutor reads = new ThreadPoolExecutor(
            2, 2, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(16), DaemonThreads.named("cluster-view-reads"));

    ClusterView() {
        this(Clock.systemUTC());
    }

    ClusterView(Clock clock) {
        this.clock = clock;
        reads.allowCoreThreadTimeOut(true);
    }

    /** Serves trees read through {@code objects}. */
    public void start(ClusterObjects objects) {
        this.objects = objects;
    }

    public void stop() {
        this.objects = null;
    }

    public boolean started() {
        return objects != null;
    }

    /**
     * The tree of {@code key}, as {@code {cluster, lines: [{depth, name, ready, severity, reason, since, message}]}}.
     */
    public Answer tree(ObjectKey key) {
        return tree(key, Optional.empty());
    }

    /** The same, with where {@code verdict}, the aggregator's status of the cluster, differs from the stored one. */
    public Answer tree(ObjectKey key, Optional<JsonNode> verdict) {
        ClusterObjects reader = objects;
        if (reader == null) {
            return new Answer.Unavailable("the aggregator is starting; try again shortly");
        }
        Future<Optional<ClusterObjects.Found>> read;
        try {
            read = reads.submit(() -> reader.read(key));
        } catch (RejectedExecutionException e) {
            return new Answer.Unavailable("too many cluster views at once; try again shortly");
        }
        try {
            Optional<ClusterObjects.Found> found = read.get(API_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            if (found.isEmpty()) {
                return new Answer.NotFound("EKS-A Cluster " + key + " not found");
            }
            return new Answer.Tree(json(key, found.get().tree(verdict, new ClusterTree.Options(true, false),
                    clock.instant())));
        } catch (TimeoutException e) {
            read.cancel(true);
            LOG.warnf("cluster view of %s: the Kubernetes API did not answer within %s", key, API_DEADLINE);
            return new Answer.Unavailable(
                    "the Kubernetes API did not answer within " + API_DEADLINE.toSeconds() + " s; try again shortly");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer.Unavailable("the aggregator is stopping");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof KubernetesClientException failure) {
                // The client's message names the API server's address: it goes to the log, not to the browser.
                LOG.warnf("cluster view of %s: the Kubernetes API failed: %s", key, failure.getMessage());
                return new Answer.Unavailable(
                        "the Kubernetes API is unreachable or refused the read; try again shortly");
            }
            LOG.errorf(e.getCause(), "cluster view of %s failed", key);
            return new Answer.Failed("the cluster view failed; the aggregator's log says why");
        }
    }

    static ObjectNode json(ObjectKey key, List<ClusterTree.Line> tree) {
        ObjectNode body = JsonNodeFactory.instance.objectNode().put("cluster", key.toString());
        ArrayNode lines = body.putArray("lines");
        for (ClusterTree.Line line : tree) {
            lines.addObject().put("depth", line.depth()).put("name", line.name()).put("ready", line.ready())
                    .put("severity", line.severity()).put("reason", line.reason()).put("since", line.since())
                    .put("message", line.message());
        }
        return body;
    }

    @jakarta.annotation.PreDestroy
    void close() {
        reads.shutdownNow();
    }
}
