package io.statusaggregator.model.json;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;

/**
 * Reads a condition's {@code lastTransitionTime}. Kubernetes writes it as {@code 2023-06-05T21:58:57Z} (RFC 3339, whole
 * seconds, UTC); that form is read by hand, and anything else by {@link Instant#parse}, which gives the same instant
 * and the same refusals. A rebuild reads one per condition of every EKS-A Cluster, and {@link Instant#parse}'s
 * general formatter was a twelfth of a fresh JVM's rebuild.
 */
public final class TransitionTimes {
    private TransitionTimes() {
    }

    /** @throws DateTimeParseException as {@link Instant#parse} does */
    public static Instant parse(String text) {
        if (text.length() == 20 && text.charAt(4) == '-' && text.charAt(7) == '-' && text.charAt(10) == 'T'
                && text.charAt(13) == ':' && text.charAt(16) == ':' && text.charAt(19) == 'Z') {
            int year = digits(text, 0, 4);
            int month = digits(text, 5, 7);
            int day = digits(text, 8, 10);
            int hour = digits(text, 11, 13);
            int minute = digits(text, 14, 16);
            int second = digits(text, 17, 19);
            if (year >= 0
                    && month >= 1
                    && month <= 12
                    && day >= 1
                    && hour >= 0
                    && hour <= 23
                    && minute >= 0
                    && minute <= 59
                    && second >= 0
                    && second <= 59
                    && day <= LocalDate.of(year, month, 1).lengthOfMonth()) {
                try {
                    return Instant.ofEpochSecond(LocalDate.of(year, month, day).toEpochDay() * 86_400L
                            + hour * 3_600L
                            + minute * 60L
                            + second);
                } catch (DateTimeException e) {
                    // out of range: Instant.parse says how
                }
            }
        }
        return Instant.parse(text);
    }

    /** The decimal number in {@code text[from, to)}, or -1 if a character there is not an ASCII digit. */
    private static int digits(String text, int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
