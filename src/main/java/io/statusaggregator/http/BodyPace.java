package io.statusaggregator.http;

import io.statusaggregator.model.Pure;
import java.time.Duration;

/**
 * Whether a request body still arriving may go on: it must be complete within {@code deadline}, and from its first
 * second on arrive at {@code minimumBytesPerSecond} on average at least. A client that trickles a body, or stops in the
 * middle of one, is so cut off, while a body sent at any network's speed is not. Pure: the time since the request's
 * head and the bytes of its body so far in, a verdict out.
 */
@Pure
public record BodyPace(Duration deadline, long minimumBytesPerSecond) {
    /** How long a body is given before its rate counts: a first packet may wait for a window or a handshake. */
    static final Duration GRACE = Duration.ofSeconds(1);

    public enum Verdict {
        GOING, TOO_SLOW, TOO_LATE
    }

    public BodyPace {
        if (deadline.isNegative() || deadline.isZero()) {
            throw new IllegalArgumentException("the body deadline must be positive, is " + deadline);
        }
        if (minimumBytesPerSecond < 0) {
            throw new IllegalArgumentException("the body rate floor must not be negative, is " + minimumBytesPerSecond);
        }
    }

    public Verdict of(Duration elapsed, long bytesRead) {
        if (elapsed.compareTo(deadline) >= 0) {
            return Verdict.TOO_LATE;
        }
        if (elapsed.compareTo(GRACE) >= 0 && bytesRead * 1000 < minimumBytesPerSecond * elapsed.toMillis()) {
            return Verdict.TOO_SLOW;
        }
        return Verdict.GOING;
    }

    /** The one line a client cut off is told. */
    public String refusal(Verdict verdict) {
        return verdict == Verdict.TOO_SLOW
                ? "the request body arrived slower than " + minimumBytesPerSecond + " bytes a second; send it at once"
                : "the request body did not arrive within " + seconds(deadline) + "; send it at once";
    }

    static String seconds(Duration duration) {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + " s" : duration.toMillis() + " ms";
    }
}
