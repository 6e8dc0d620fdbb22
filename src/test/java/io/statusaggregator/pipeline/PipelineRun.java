package io.statusaggregator.pipeline;

import io.statusaggregator.Pipeline;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.embedded.FleetSimulator;
import io.statusaggregator.model.CapiApiVersion;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a whole-pipeline test runs on, one per test: an embedded API server with a {@link Fleet} on it, an id that
 * names the test's own topics and consumer group, and the pipelines it starts, all closed after the test. Register
 * with {@code @RegisterExtension final PipelineRun pipelineRun = new PipelineRun(kafka::bootstrapServers);}.
 */
final class PipelineRun implements BeforeEachCallback, AfterEachCallback {
    private final Supplier<String> bootstrapServers;
    private final CapiApiVersion capi;
    private final List<Pipeline> pipelines = new ArrayList<>();
    private EmbeddedKubernetes kubernetes;
    private Fleet fleet;
    private String id;
    /** Status writes of the pipelines stopped so far. */
    private long writesOfStopped;

    PipelineRun(Supplier<String> bootstrapServers) {
        this(bootstrapServers, CapiApiVersion.V1BETA1);
    }

    /**
     * @param capi the Cluster API version of the management cluster: {@code v1beta1}, a CAPI v1.10 one serving it
     *             only; {@code v1beta2}, a CAPI v1.13 one serving both, the fleet's objects written at v1beta2
     */
    PipelineRun(Supplier<String> bootstrapServers, CapiApiVersion capi) {
        this.capi = capi;
        this.bootstrapServers = bootstrapServers;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        begin();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        end();
    }

    /** A fresh API server, fleet and topics, as at the start of a test. */
    void begin() {
        kubernetes = EmbeddedKubernetes.start(0, FleetSimulator.capiVersionsServed(capi));
        fleet = new Fleet(kubernetes.client(), capi);
        fleet.afterUnanswered(kubernetes::restart);
        id = UUID.randomUUID().toString().substring(0, 8);
    }

    /** Closes the pipelines, then the fleet and the API server. */
    void end() {
        pipelines.forEach(Pipeline::close);
        pipelines.clear();
        writesOfStopped = 0;
        fleet.close();
        kubernetes.close();
    }

    EmbeddedKubernetes kubernetes() {
        return kubernetes;
    }

    Fleet fleet() {
        return fleet;
    }

    /** Names this test's topics ({@code statuses-ID}, ...) and consumer group, as {@link Fleet#settings} does. */
    String id() {
        return id;
    }

    String bootstrapServers() {
        return bootstrapServers.get();
    }

    /** The settings of an aggregating and ingesting pipeline on this run's topics. */
    Pipeline.Settings settings() {
        return Fleet.settings(bootstrapServers.get(), id, true);
    }

    /** A pipeline on this run's topics, started (ingest included). */
    Pipeline start() throws Exception {
        return start(settings());
    }

    Pipeline start(Pipeline.Settings settings) throws Exception {
        Pipeline pipeline = new Pipeline(settings, kubernetes.newClient(), CompatibilityReader.builtIn(), Clock.systemUTC());
        pipelines.add(pipeline);
        pipeline.start(Fleet.DEADLINE);
        return pipeline;
    }

    /** Stops a pipeline before the end of the test, as a replica stops. */
    void stop(Pipeline pipeline) {
        pipelines.remove(pipeline);
        pipeline.close();
        writesOfStopped += pipeline.aggregator().writer().writes();
    }

    /** Status writes (successful PATCHes) of every pipeline this run started. */
    long writes() {
        return writesOfStopped + pipelines.stream().mapToLong(p -> p.aggregator().writer().writes()).sum();
    }

    /** The pipelines started and not stopped, oldest first. */
    List<Pipeline> pipelines() {
        return List.copyOf(pipelines);
    }
}
