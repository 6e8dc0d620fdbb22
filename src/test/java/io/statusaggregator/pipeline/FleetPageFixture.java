package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.CAPI;
import static io.statusaggregator.pipeline.Fleet.DEADLINE;

import io.statusaggregator.Pipeline;
import io.statusaggregator.describe.ClusterObjects;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.fleet.ClusterView;
import io.statusaggregator.fleet.FleetPage;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.io.IOException;
import java.time.Clock;
import java.util.UUID;

/**
 * The whole pipeline behind the fleet page, for the tests that drive the page: a {@link Fleet} on an embedded API
 * server, the aggregator on the test's broker (topics of a run of its own), and Quarkus' fleet page and cluster view
 * reading them; a headless Chromium once a test asks for one. All of it closed with the fixture.
 */
final class FleetPageFixture implements AutoCloseable {
    final EmbeddedKubernetes kubernetes;
    final Fleet fleet;
    private final Pipeline pipeline;
    private final FleetPage page;
    private final ClusterView view;
    private HeadlessChromium chromium;

    private FleetPageFixture(EmbeddedKubernetes kubernetes, Fleet fleet, Pipeline pipeline, FleetPage page,
            ClusterView view) {
        this.kubernetes = kubernetes;
        this.fleet = fleet;
        this.pipeline = pipeline;
        this.page = page;
        this.view = view;
    }

    /**
     * Starts the aggregator on {@code kubernetes} and {@code bootstrapServers}, then {@code page} and {@code view} on
     * what it writes and reads; they are stopped, and {@code kubernetes} closed, with the fixture.
     */
    static FleetPageFixture start(EmbeddedKubernetes kubernetes, String bootstrapServers, FleetPage page,
            ClusterView view) throws Exception {
        Fleet fleet = new Fleet(kubernetes.client());
        String run = UUID.randomUUID().toString().substring(0, 8);
        Pipeline.Settings settings = Fleet.settings(bootstrapServers, run, true);
        Pipeline pipeline =
                new Pipeline(settings, kubernetes.newClient(), CompatibilityReader.builtIn(), Clock.systemUTC());
        pipeline.start(DEADLINE);
        page.start(settings.kafka(), settings.statusesTopic(), settings.transitionsTopic());
        view.start(new ClusterObjects(kubernetes.newClient(), CAPI));
        return new FleetPageFixture(kubernetes, fleet, pipeline, page, view);
    }

    /** The browser, started on the first call. */
    HeadlessChromium chromium() throws IOException {
        if (chromium == null) {
            chromium = HeadlessChromium.start();
        }
        return chromium;
    }

    @Override
    public void close() throws IOException {
        if (chromium != null) {
            chromium.close();
        }
        page.stop();
        view.stop();
        pipeline.close();
        fleet.close();
        kubernetes.close();
    }
}
