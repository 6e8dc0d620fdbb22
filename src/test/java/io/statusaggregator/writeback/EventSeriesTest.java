package io.statusaggregator.writeback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.writeback.EventSeries.Create;
import io.statusaggregator.writeback.EventSeries.Drop;
import io.statusaggregator.writeback.EventSeries.Key;
import io.statusaggregator.writeback.EventSeries.Repeat;
import io.statusaggregator.writeback.StatusEvents.StatusEvent;
import io.statusaggregator.writeback.StatusEvents.Type;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class EventSeriesTest {
    private static final Instant T = Instant.parse("2026-11-25T10:00:00Z");
    private static final ObjectKey ALPHA = new ObjectKey("default", "alpha");
    private static final ObjectKey BRAVO = new ObjectKey("default", "bravo");

    private static Key key(ObjectKey cluster, String reason) {
        return new Key(cluster, new StatusEvent(Type.Normal, reason, reason + " happened"));
    }

    /** Decides and, for a Create, says the object was made, as the recorder does. */
    private static EventSeries.Decision decide(EventSeries series, Key key, Instant at) {
        EventSeries.Decision decision = series.decide(key, at);
        if (decision instanceof Create) {
            series.created(key, key.cluster().name() + "." + at.toEpochMilli());
        }
        return decision;
    }

    @Test
    void theSameEventWithinSixMinutesRaisesTheSeriesOfOneObject() {
        EventSeries series = new EventSeries();
        Key ready = key(ALPHA, "Ready");
        assertEquals(new Create(ready), decide(series, ready, T));
        assertEquals(new Repeat("alpha." + T.toEpochMilli(), 2, T.plusSeconds(60)), decide(series, ready, T.plusSeconds(60)));
        assertEquals(new Repeat("alpha." + T.toEpochMilli(), 3, T.plusSeconds(400)), decide(series, ready, T.plusSeconds(400)),
                "six minutes from the last, not the first");
        assertEquals(new Create(ready), decide(series, ready, T.plusSeconds(400).plus(EventSeries.SERIES_WINDOW).plusSeconds(1)),
                "a quiet series ends: the next one is a new object");
    }

    @Test
    void aClusterMadeAgainUnderItsNameStartsItsOwnSeriesAndBudget() {
        EventSeries series = new EventSeries();
        Key ready = key(ALPHA, "Ready");
        decide(series, ready, T);
        for (int i = 0; i < EventSeries.BURST - 1; i++) {
            decide(series, key(ALPHA, "Reason" + i), T);
        }
        decide(series, key(BRAVO, "Ready"), T);
        series.forgetCluster(ALPHA);
        assertEquals(new Create(ready), decide(series, ready, T.plusSeconds(1)),
                "the new Cluster's Event is an object of its own, not a repeat attached to the old uid");
        assertInstanceOf(Create.class, decide(series, key(ALPHA, "Other"), T.plusSeconds(1)), "with a budget of its own");
        assertInstanceOf(Repeat.class, decide(series, key(BRAVO, "Ready"), T.plusSeconds(1)), "other clusters' series stay");
    }

    @Test
    void anotherReasonOrNoteOrClusterIsAnotherEvent() {
        EventSeries series = new EventSeries();
        assertInstanceOf(Create.class, decide(series, key(ALPHA, "Ready"), T));
        assertInstanceOf(Create.class, decide(series, key(ALPHA, "WorkersReady"), T));
        assertInstanceOf(Create.class, decide(series, key(BRAVO, "Ready"), T));
        assertInstanceOf(Create.class, decide(series, new Key(ALPHA, new StatusEvent(Type.Normal, "Ready", "another note")), T));
    }

    @Test
    void aClusterMakesTwentyFiveAtOnceThenOneEveryFiveMinutesWhileOthersAreUntouched() {
        EventSeries series = new EventSeries();
        for (int i = 0; i < EventSeries.BURST; i++) {
            assertInstanceOf(Create.class, decide(series, key(ALPHA, "Reason" + i), T), "event " + i);
        }
        assertEquals(new Drop(key(ALPHA, "Flap")), decide(series, key(ALPHA, "Flap"), T.plusSeconds(10)));
        assertInstanceOf(Create.class, decide(series, key(BRAVO, "Flap"), T.plusSeconds(10)), "another cluster has its own budget");
        assertInstanceOf(Repeat.class, decide(series, key(ALPHA, "Reason3"), T.plusSeconds(20)), "a repeat costs nothing: one object");
        assertInstanceOf(Drop.class, decide(series, key(ALPHA, "Flap"), T.plus(EventSeries.REFILL).minusSeconds(1)));
        assertInstanceOf(Create.class, decide(series, key(ALPHA, "Flap"), T.plus(EventSeries.REFILL)), "one more after five minutes");
        assertInstanceOf(Drop.class, decide(series, key(ALPHA, "Flap2"), T.plus(EventSeries.REFILL).plusSeconds(1)));
        assertInstanceOf(Create.class, decide(series, key(ALPHA, "Flap3"), T.plus(Duration.ofHours(3))), "refilled over time");
    }

    @Test
    void aForgottenSeriesStartsAgain() {
        EventSeries series = new EventSeries();
        Key ready = key(ALPHA, "Ready");
        decide(series, ready, T);
        series.forget(ready);
        assertEquals(new Create(ready), decide(series, ready, T.plusSeconds(1)));
    }
}
