package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.statusaggregator.Pipeline;
import io.statusaggregator.aggregation.Aggregator;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.model.ObjectKind;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Another controller writes the Cluster's status between the aggregator's reading of the Cluster and its write: its
 * failure must survive. The aggregator's status, computed before that failure was set, would null it (the merge patch
 * names {@code failureReason}); written on condition of the version it was computed from, it is refused instead, and
 * computed again from the Cluster's newer state, the failure kept.
 */
class ConcurrentStatusWriterTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @RegisterExtension
    final PipelineRun pipelineRun = new PipelineRun(() -> kafka.bootstrapServers());

    private static final String STATUS_PATH = "/apis/anywhere.eks.amazonaws.com/v1alpha1/namespaces/default/clusters/alpha/status";

    @Test
    void aFailureAnotherControllerSetsWhileAStatusIsWrittenIsKept() throws Exception {
        Pipeline pipeline = pipelineRun.start();
        Fleet fleet = pipelineRun.fleet();
        fleet.createReady("alpha");
        Aggregator aggregator = pipeline.aggregator();
        await(DEADLINE, aggregator::settled, aggregator::progress);

        // The aggregator's next status write of alpha reaches the API server just after another controller's.
        AtomicBoolean armed = new AtomicBoolean(true);
        AtomicInteger writes = new AtomicInteger();
        AtomicInteger theirsAnswered = new AtomicInteger();
        pipelineRun.kubernetes().answerInstead(request -> {
            if (request.getMethod().equals("PATCH") && request.getPath().startsWith(STATUS_PATH)) {
                writes.incrementAndGet();
                if (armed.compareAndSet(true, false)) {
                    String theirs = """
                            {"status": {"failureReason": "BadDatacenterConfig", "failureMessage": "datacenter dc-9 not found"}}""";
                    MockResponse served = pipelineRun.kubernetes().serve(new RecordedRequest(request.getHttpVersion(), request.method(),
                            request.getPath(), request.getHeaders(), new Buffer(theirs.getBytes(StandardCharsets.UTF_8))));
                    theirsAnswered.set(served.code());
                }
            }
            return null;
        });
        fleet.workers("alpha", 1, 1, 1, 0); // a worker not ready: the aggregator writes WorkersReady False

        await(DEADLINE, () -> theirsAnswered.get() != 0, () -> "no status write of alpha came");
        assertEquals(2, theirsAnswered.get() / 100, "the other controller's write made: " + theirsAnswered.get());
        fleet.awaitCondition("alpha", "WorkersReady", "False", "ScalingUp", "Workers expected not ready yet, 1 replicas (actual 0)");
        await(DEADLINE, () -> aggregator.settled() && "BadDatacenterConfig".equals(fleet.status("default", "alpha").get("failureReason")),
                () -> "the other controller's failure lost: " + fleet.status("default", "alpha") + "; " + aggregator.progress());
        assertTrue(writes.get() >= 2, "the first write refused, the status computed again written: " + writes.get());
        assertTrue(aggregator.writer().failures() >= 1, "the refused write counts as failed");

        // Its worker ready again: every part of alpha ready, but the failure stands, and Ready says so.
        fleet.workers("alpha", 1, 1, 1, 1);
        fleet.awaitCondition("alpha", "Ready", "False", "BadDatacenterConfig", "datacenter dc-9 not found");
        assertEquals("datacenter dc-9 not found", fleet.status("default", "alpha").get("failureMessage"));
    }
}
