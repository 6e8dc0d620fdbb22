package io.statusaggregator.operations;

import io.quarkus.runtime.StartupEvent;
import io.statusaggregator.AggregatorConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.logging.Handler;
import java.util.logging.Logger;
import org.jboss.logmanager.ExtHandler;
import org.jboss.logmanager.formatters.JsonFormatter;
import org.jboss.logmanager.formatters.StructuredFormatter;

/**
 * {@code aggregator.log.json=true}: every console line becomes one JSON object (timestamp, level, loggerName,
 * message, threadName, stackTrace...), so that a log collector reads fields instead of parsing text. Installed as
 * Quarkus starts, before the application logs anything of its own.
 */
@ApplicationScoped
public class JsonLogs {
    void install(@Observes StartupEvent started, AggregatorConfig config) {
        if (config.log().json()) {
            JsonFormatter json = new JsonFormatter();
            json.setPrettyPrint(false);
            // A stack trace as one string field: one record stays one line.
            json.setExceptionOutputType(StructuredFormatter.ExceptionOutputType.FORMATTED);
            for (Handler handler : Logger.getLogger("").getHandlers()) {
                format(handler, json);
            }
        }
    }

    /** Quarkus wraps its console handler in a delayed one; the formatter belongs to the handlers that write. */
    private static void format(Handler handler, JsonFormatter json) {
        if (handler instanceof ExtHandler && ((ExtHandler) handler).getHandlers().length > 0) {
            for (Handler nested : ((ExtHandler) handler).getHandlers()) {
                format(nested, json);
            }
        } else {
            handler.setFormatter(json);
        }
    }
}
