package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.fleet.FleetPage;
import io.statusaggregator.pipeline.PublishedFleet.Cluster;
import io.statusaggregator.pipeline.PublishedFleet.Shows;
import jakarta.inject.Inject;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The fleet page's figures at 1,000 clusters, in headless Chromium (BENCHMARKS.md, "The fleet page at 1,000
 * clusters"). Not a test of speed: it prints what it measures and fails only when the page does not show what was
 * published. Not in the suite (its name matches none of Surefire's patterns); run it alone:
 *
 * <pre>flock /tmp/heavy.lock mvn -B -q test -Dtest=FleetPageFigures</pre>
 *
 * <ul>
 * <li><b>load</b>: navigation start to the 1,000 rows built, counted and in the document (the page's own mark
 * {@code fleet:snapshot-shown}), and to the first frame painted after it; over {@value #LOADS} loads;</li>
 * <li><b>update</b>: a status published to the topic (the producer's send returned) to the frame painted with that
 * cluster's row and the counts changed (the page's mark {@code fleet:updated}, then the next frame), over
 * {@value #UPDATES} updates one after another;</li>
 * <li><b>burst</b>: {@value #BURST} statuses published at once to the frame that showed the last of them.</li>
 * </ul>
 * "Painted" is the first task after the frame that carries the change has been rendered, taken by a script the browser
 * adds to the page before its own (DevTools' Page.addScriptToEvaluateOnNewDocument), around the page's own marks: the
 * page itself is served unchanged.
 */
@QuarkusTest
class FleetPageFigures {
    static final int LOADS = 7;
    static final int UPDATES = 21;
    static final int BURST = 100;
    /**
     * Records, in the page's own clock, when each of the page's marks was followed by a painted frame. The snapshot's
     * mark is made in an event's task: its frame is the next one (a requestAnimationFrame, then a task after its
     * rendering). An update's mark is made in a requestAnimationFrame callback: its frame is rendered as soon as the
     * callbacks return, so a task queued then runs after it.
     */
    private static final String PAINT_OBSERVER = """
            window.__fleetFigures = {snapshot: [], updated: []};
            // How long the page's own script ran in the frame callback that made the mark.
            var frameStart = 0;
            var raf = window.requestAnimationFrame.bind(window);
            window.requestAnimationFrame = function (callback) {
              return raf(function (time) { frameStart = performance.now(); callback(time); });
            };
            var mark = performance.mark.bind(performance);
            performance.mark = function (name, options) {
              var made = mark(name, options);
              var into = name === 'fleet:snapshot-shown' ? 'snapshot' : name === 'fleet:updated' ? 'updated' : null;
              if (into) {
                var record = function () {
                  window.__fleetFigures[into].push({dom: made.startTime, painted: performance.now(), detail: made.detail,
                      origin: performance.timeOrigin, script: made.startTime - frameStart});
                };
                if (into === 'snapshot') requestAnimationFrame(function () { setTimeout(record, 0); }); else setTimeout(record, 0);
              }
              return made;
            };
            """;

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @Inject
    FleetPage page;

    @TestHTTPResource("/")
    URL root;

    @Test
    void printTheFleetPagesLoadAndUpdateTimes() throws Exception {
        List<Cluster> clusters = PublishedFleet.of(FleetPageAtScaleTest.SIZE);
        try (PublishedFleet fleet = new PublishedFleet(kafka.bootstrapServers(), UUID.randomUUID().toString().substring(0, 8));
                HeadlessChromium chromium = HeadlessChromium.start()) {
            fleet.publish(clusters);
            page.start(Map.of("bootstrap.servers", kafka.bootstrapServers()), fleet.statuses, fleet.transitions);
            Fleet.await(DEADLINE, () -> page.snapshot().size() == clusters.size(), () -> "the page read " + page.snapshot().size());
            ((ChromeDriver) chromium.driver).executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source", PAINT_OBSERVER));
            WebDriverWait wait = new WebDriverWait(chromium.driver, DEADLINE);

            List<Double> loadDom = new ArrayList<>();
            List<Double> loadPainted = new ArrayList<>();
            for (int i = 0; i < LOADS + 1; i++) {
                chromium.driver.get(root + "?load=" + i);
                wait.until(d -> ((Number) chromium.script("return window.__fleetFigures.snapshot.length;")).intValue() > 0);
                assertEquals(String.valueOf(clusters.size()), chromium.driver.findElement(By.id("shown")).getAttribute("data-shown"));
                @SuppressWarnings("unchecked")
                Map<String, Object> shown = (Map<String, Object>) chromium.script("return window.__fleetFigures.snapshot[0];");
                System.out.printf("load %d: rows at %.0f ms, painted at %.0f ms, DOMContentLoaded at %.0f ms%n", i,
                        ((Number) shown.get("dom")).doubleValue(), ((Number) shown.get("painted")).doubleValue(),
                        ((Number) chromium.script("return performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd;")).doubleValue());
                if (i > 0) { // the first load warms Chromium's caches and Quarkus' code paths up
                    loadDom.add(((Number) shown.get("dom")).doubleValue());
                    loadPainted.add(((Number) shown.get("painted")).doubleValue());
                }
            }

            List<Double> updates = new ArrayList<>();
            List<Double> flushes = new ArrayList<>();
            List<Double> scripts = new ArrayList<>();
            List<Cluster> ready = clusters.stream().filter(c -> c.shows() == Shows.READY).toList();
            for (Cluster c : ready.subList(0, UPDATES)) {
                Cluster failed = new Cluster(c.namespace(), c.name(), Shows.FAILED, PublishedFleet.NOW);
                long sent = System.currentTimeMillis();
                fleet.publish(failed);
                Map<String, Object> painted = awaitPainted(chromium, wait, List.of(failed.key()));
                updates.add(epoch(painted) - sent);
                flushes.add(((Number) painted.get("painted")).doubleValue() - ((Number) painted.get("dom")).doubleValue());
                scripts.add(((Number) painted.get("script")).doubleValue());
            }
            // The same measure with no change at all: what a frame costs this browser on this machine by itself.
            List<Double> idle = new ArrayList<>();
            for (int i = 0; i < UPDATES; i++) {
                idle.add(((Number) ((org.openqa.selenium.JavascriptExecutor) chromium.driver).executeAsyncScript("""
                        var done = arguments[arguments.length - 1];
                        requestAnimationFrame(function () {
                          var start = performance.now();
                          setTimeout(function () { done(performance.now() - start); }, 0);
                        });
                        """)).doubleValue());
            }
            List<Cluster> burstOf = ready.subList(UPDATES, UPDATES + BURST).stream()
                    .map(c -> new Cluster(c.namespace(), c.name(), Shows.FAILED, PublishedFleet.NOW)).toList();
            long burstSent = System.currentTimeMillis();
            fleet.publish(burstOf);
            Map<String, Object> lastOfBurst = awaitPainted(chromium, wait, burstOf.stream().map(Cluster::key).toList());
            double burst = epoch(lastOfBurst) - burstSent;
            int errors = (int) clusters.stream().filter(c -> c.shows() == Shows.FAILED).count() + UPDATES + BURST;
            wait.until(d -> chromium.driver.findElement(By.cssSelector("#states [data-state='error'] .state-count")).getText()
                    .equals(String.valueOf(errors)));

            String report = """
                    fleet page, %d clusters, headless Chromium %s
                    load, navigation start to rows built and counted:  median %.0f ms, max %.0f ms (%d loads)
                    load, navigation start to the frame painted:       median %.0f ms, max %.0f ms
                    update, status published to the frame painted:     median %.0f ms, max %.0f ms (%d updates)
                      the page's script in that frame (the changes applied, counted):  median %.1f ms, max %.1f ms
                      then the browser's rendering (changed to painted):               median %.1f ms, max %.1f ms
                      a frame without a change, measured the same way:                 median %.1f ms, max %.1f ms
                    burst, %d statuses published to the last painted:  %.0f ms
                    """.formatted(clusters.size(), ((ChromeDriver) chromium.driver).getCapabilities().getBrowserVersion(),
                    median(loadDom), max(loadDom), LOADS, median(loadPainted), max(loadPainted), median(updates), max(updates), UPDATES,
                    median(scripts), max(scripts), median(flushes), max(flushes), median(idle), max(idle), BURST, burst);
            System.out.print(report);
            Files.writeString(Path.of("target", "fleet-page-figures.txt"), report);
        } finally {
            page.stop();
        }
    }

    /** The painted frame whose changes included the last of {@code keys} to be shown. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> awaitPainted(HeadlessChromium chromium, WebDriverWait wait, List<String> keys) {
        String find = """
                var wanted = new Set(arguments[0]);
                var found = null;
                window.__fleetFigures.updated.forEach(function (u) {
                  u.detail.keys.forEach(function (k) { if (wanted.delete(k)) found = u; });
                });
                return wanted.size === 0 ? found : null;
                """;
        return (Map<String, Object>) wait.until(d -> chromium.script(find, keys));
    }

    private static double epoch(Map<String, Object> painted) {
        return ((Number) painted.get("origin")).doubleValue() + ((Number) painted.get("painted")).doubleValue();
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    private static double max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }
}
