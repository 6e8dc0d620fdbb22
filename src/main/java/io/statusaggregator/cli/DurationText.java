package io.statusaggregator.cli;

import java.time.Duration;
import java.util.Optional;

/** Durations as people type them on a command line (500ms, 90s, 10m, 1h, 2d), or ISO-8601 (PT10M). */
final class DurationText {
    private DurationText() {
    }

    static Optional<Duration> parse(String text) {
        try {
            if (text.matches("\\d+ms")) {
                return Optional.of(Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2))));
            }
            if (text.matches("\\d+[smhd]")) {
                long amount = Long.parseLong(text.substring(0, text.length() - 1));
                switch (text.charAt(text.length() - 1)) {
                    case 's':
                        return Optional.of(Duration.ofSeconds(amount));
                    case 'm':
                        return Optional.of(Duration.ofMinutes(amount));
                    case 'h':
                        return Optional.of(Duration.ofHours(amount));
                    default:
                        return Optional.of(Duration.ofDays(amount));
                }
            }
            return Optional.of(Duration.parse(text));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }
}
