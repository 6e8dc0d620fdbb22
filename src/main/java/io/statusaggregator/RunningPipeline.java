package io.statusaggregator;

import jakarta.inject.Singleton;
import java.util.Optional;

/**
 * The pipeline {@code run} started, for what Quarkus serves over HTTP (the readiness checks, the preflight endpoints).
 * Quarkus opens its listeners before the command runs: until the pipeline has started there is none, which the
 * checks read as not ready and the endpoints answer with 503. A singleton, not a client proxy: {@code run} still
 * reaches it while Quarkus stops, after its contexts have ended.
 */
@Singleton
public class RunningPipeline {
    private volatile Pipeline pipeline;

    /** The pipeline now serving; once its {@link Pipeline#start} has returned. */
    public Optional<Pipeline> get() {
        return Optional.ofNullable(pipeline);
    }

    public void started(Pipeline started) {
        this.pipeline = started;
    }

    /** Before the pipeline closes, so that nothing is served from a closed one. */
    public void stopped() {
        this.pipeline = null;
    }
}
