package io.statusaggregator.embedded;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real Kafka broker in this JVM for the tests of one class: started before the first, stopped after the last.
 * Register it with {@code @RegisterExtension static final KafkaBroker kafka = new KafkaBroker();}. (One broker per
 * class, not per run: a broker shared by classes and stopped by a shutdown hook made Surefire's fork fail at exit.)
 */
public final class KafkaBroker implements BeforeAllCallback, AfterAllCallback {
    private final java.util.Map<String, String> settings;
    private EmbeddedKafka broker;

    public KafkaBroker() {
        this(java.util.Map.of());
    }

    /** A broker with these settings over {@link EmbeddedKafka}'s. */
    public KafkaBroker(java.util.Map<String, String> settings) {
        this.settings = settings;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        broker = EmbeddedKafka.start(settings);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    /** The broker itself: to stop and start it, as the fault tests do. */
    public EmbeddedKafka broker() {
        return broker;
    }
}
