package io.statusaggregator.pipeline;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The log lines of each test at or above a level, as the logger's caller wrote them (formatted, {@code logger: message}),
 * for tests in any package. Register with {@code @RegisterExtension final LogCapture warnings = new LogCapture(Level.WARNING);}.
 */
public final class LogCapture implements BeforeEachCallback, AfterEachCallback {
    private final Level level;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= level.intValue()) {
                String message = record instanceof org.jboss.logmanager.ExtLogRecord ext ? ext.getFormattedMessage()
                        : new java.util.logging.SimpleFormatter().formatMessage(record);
                lines.add(record.getLoggerName() + ": " + message);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    public LogCapture(Level level) {
        this.level = level;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        lines.clear();
        Logger.getLogger("").addHandler(handler);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Logger.getLogger("").removeHandler(handler);
    }

    /** What was logged so far in this test, oldest first. */
    public List<String> lines() {
        return List.copyOf(lines);
    }
}
