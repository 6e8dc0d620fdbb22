package io.statusaggregator.http;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.List;

/** The HTTP server's series with their method and URI labels bounded ({@link HttpLabels}). */
@Singleton
public class BoundedHttpLabels {
    @Produces
    @Singleton
    MeterFilter boundedHttpServerLabels() {
        return new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                if (!id.getName().startsWith("http.server")) {
                    return id;
                }
                List<Tag> tags = id.getTags().stream().map(tag -> switch (tag.getKey()) {
                    case "method" -> Tag.of("method", HttpLabels.method(tag.getValue()));
                    case "uri" -> Tag.of("uri", HttpLabels.uri(tag.getValue()));
                    default -> tag;
                }).toList();
                return id.replaceTags(tags);
            }
        };
    }
}
