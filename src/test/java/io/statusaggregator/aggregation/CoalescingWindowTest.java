package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.smallrye.config.WithDefault;
import io.statusaggregator.AggregatorConfig;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class CoalescingWindowTest {
    private static final CoalescingWindow WINDOW = new CoalescingWindow(Duration.ofMillis(100), Duration.ofSeconds(1), 2_000);

    @ParameterizedTest(name = "{0} records behind: {1} ms")
    @CsvSource({
            "0, 100",          // kept up
            "1999, 100",
            "2000, 100",       // one poll's worth: no backlog
            "2001, 100",       // 100.05 ms
            "3000, 150",
            "10000, 500",
            "20000, 1000",
            "20001, 1000",     // the longest
            "1000000, 1000",
            "9223372036854775807, 1000",
    })
    void theWindowGrowsWithTheBacklogBeyondOnePollUpToTheLongest(long backlog, long millis) {
        assertEquals(millis, Duration.ofNanos(WINDOW.nanos(backlog)).toMillis());
    }

    @Test
    void aLongestShorterThanTheWindowTurnsTheGrowthOff() {
        CoalescingWindow fixed = new CoalescingWindow(Duration.ofMillis(250), Duration.ofMillis(100), 500);
        assertEquals(Duration.ofMillis(250), fixed.longest());
        assertEquals(Duration.ofMillis(250).toNanos(), fixed.nanos(1_000_000));
    }

    @ParameterizedTest(name = "by default, {0} records behind: {1} ms")
    @CsvSource({
            "2000, 100",
            "20000, 1000",
            "40000, 2000",
            "60000, 3000",     // the longest
            "1000000, 3000",
    })
    void byDefaultTheWindowGrowsToThreeSeconds(long backlog, long millis) {
        CoalescingWindow window = new CoalescingWindow(Duration.ofMillis(100), CoalescingWindow.DEFAULT_LONGEST, 2_000);
        assertEquals(millis, Duration.ofNanos(window.nanos(backlog)).toMillis());
    }

    @Test
    void theApplicationsDefaultIsTheLongestByDefault() throws NoSuchMethodException {
        String configured = AggregatorConfig.class.getMethod("longestCoalescingWindow").getAnnotation(WithDefault.class).value();
        assertEquals(CoalescingWindow.DEFAULT_LONGEST, Duration.parse("PT" + configured.toUpperCase(java.util.Locale.ROOT)),
                "aggregator.coalescing-window-max's default, as the tests and benchmarks use it");
    }

    @Test
    void aZeroWindowStaysZeroUnderABacklog() {
        CoalescingWindow none = new CoalescingWindow(Duration.ZERO, Duration.ofSeconds(1), 500);
        assertEquals(0, none.nanos(1_000_000), "a window of zero computes every record: growing it from zero gives zero");
    }

    @Test
    void aNegativeWindowOrNoPollIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new CoalescingWindow(Duration.ofMillis(-1), Duration.ofSeconds(1), 500));
        assertThrows(IllegalArgumentException.class, () -> new CoalescingWindow(Duration.ofMillis(100), Duration.ofSeconds(1), 0));
    }
}
