package io.statusaggregator.cli;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people type them on a command line (500ms, 90s, 10m, 1h, 2d, 1h30m), or ISO-8601 (PT10M). */
final class DurationText {
    private DurationText() {
    }

    /** Days, hours, minutes, seconds and milliseconds, each at most once and in that order: 90s, 1h30m, 500ms. */
    private static final Pattern TYPED =
            Pattern.compile("(?:(\\d{1,9})d)?(?:(\\d{1,9})h)?(?:(\\d{1,9})m(?!s))?(?:(\\d{1,9})s)?(?:(\\d{1,9})ms)?");

    static Optional<Duration> parse(String text) {
        Matcher typed = TYPED.matcher(text);
        if (!text.isEmpty() && typed.matches()) {
            long[] amounts = new long[5];
            for (int i = 0; i < amounts.length; i++) {
                amounts[i] = typed.group(i + 1) == null ? 0 : Long.parseLong(typed.group(i + 1));
            }
            return Optional.of(Duration.ofDays(amounts[0])
                    .plusHours(amounts[1])
                    .plusMinutes(amounts[2])
                    .plusSeconds(amounts[3])
                    .plusMillis(amounts[4]));
        }
        try {
            return Optional.of(Duration.parse(text));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** {@code duration} as the help texts write durations: 500ms, 90s, 10m, 1h30m. */
    static String format(Duration duration) {
        if (duration.isNegative() || duration.toMillis() < 1_000 || duration.toMillisPart() != 0) {
            return duration.toMillis() + "ms";
        }
        StringBuilder text = new StringBuilder();
        long days = duration.toDaysPart();
        if (days > 0) {
            text.append(days).append('d');
        }
        if (duration.toHoursPart() > 0) {
            text.append(duration.toHoursPart()).append('h');
        }
        if (duration.toMinutesPart() > 0) {
            text.append(duration.toMinutesPart()).append('m');
        }
        if (duration.toSecondsPart() > 0) {
            text.append(duration.toSecondsPart()).append('s');
        }
        return text.toString();
    }
}
