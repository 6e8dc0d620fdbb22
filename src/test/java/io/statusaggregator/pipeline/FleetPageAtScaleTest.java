package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.fleet.FleetPage;
import io.statusaggregator.pipeline.PublishedFleet.Cluster;
import io.statusaggregator.pipeline.PublishedFleet.Shows;
import jakarta.inject.Inject;
import java.net.URL;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The fleet page with 1,000 clusters in headless Chromium: their statuses published straight to the status topic
 * of a real broker ({@link PublishedFleet}), read by the page's own reader and served by Quarkus as in production.
 * What a user sees is asserted against what was published: the counts per state, each filter (state, condition,
 * reason, namespace), the search, both sorts, a view opened from its URL, the keyboard, and changes shown live.
 * Every wait has a deadline and waits on what the page shows; nothing here times the page (that is
 * {@link FleetPageFigures}).
 */
@QuarkusTest
class FleetPageAtScaleTest {
    static final int SIZE = 1_000;
    /** Rows the user sees: the table's rows not hidden by a filter, in order. */
    static final String SHOWN_ROWS = "return Array.from(document.querySelectorAll('#clusters tr:not([hidden])'))"
            + ".map(function (r) { return r.getAttribute('data-cluster'); });";

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @Inject
    FleetPage page;

    @TestHTTPResource("/")
    URL root;

    private final List<Cluster> clusters = PublishedFleet.of(SIZE);
    private PublishedFleet fleet;
    private HeadlessChromium chromium;
    private WebDriverWait wait;

    @BeforeEach
    void start() throws Exception {
        fleet = new PublishedFleet(kafka.bootstrapServers(), UUID.randomUUID().toString().substring(0, 8));
        fleet.publish(clusters);
        page.start(Map.of("bootstrap.servers", kafka.bootstrapServers()), fleet.statuses, fleet.transitions);
        Fleet.await(DEADLINE, () -> page.snapshot().size() == SIZE, () -> "the page read " + page.snapshot().size() + " clusters");
        chromium = HeadlessChromium.start();
        wait = new WebDriverWait(chromium.driver, DEADLINE);
    }

    @AfterEach
    void stop() throws Exception {
        if (chromium != null) {
            chromium.close();
        }
        page.stop();
        fleet.close();
    }

    @Test
    void countsFiltersSearchAndSortShowWhatWasPublished() throws Exception {
        try {
            open("");
            assertEquals(SIZE + " clusters, " + count(c -> c.shows() == Shows.READY) + " Ready", text("#counts"));
            assertEquals(Map.of("all", SIZE, "ready", count(c -> c.shows() == Shows.READY), "not-ready", count(c -> c.shows() != Shows.READY),
                    "error", count(c -> c.shows() == Shows.FAILED), "unknown", count(c -> c.shows() == Shows.CREATING)), stateCounts());
            assertEquals(keys(c -> true, byName()), shown(), "every cluster, by name");

            // Each count filters; the address says so.
            for (String state : List.of("not-ready", "error", "unknown", "ready")) {
                click("#states [data-state='" + state + "']");
                Predicate<Cluster> in = switch (state) {
                    case "not-ready" -> c -> c.shows() != Shows.READY;
                    case "error" -> c -> c.shows() == Shows.FAILED;
                    case "unknown" -> c -> c.shows() == Shows.CREATING;
                    default -> c -> c.shows() == Shows.READY;
                };
                awaitShown(keys(in, byName()), state);
                assertTrue(hash().contains("state=" + state), hash());
                assertEquals("true", chromium.driver.findElement(By.cssSelector("#states [data-state='" + state + "']")).getAttribute("aria-pressed"));
            }
            click("#states [data-state='all']");
            awaitShown(keys(c -> true, byName()), "all again");

            // By condition: WorkersReady False is the clusters scaling up, and no other.
            new Select(chromium.driver.findElement(By.id("filter-condition"))).selectByValue("WorkersReady");
            new Select(chromium.driver.findElement(By.id("filter-status"))).selectByValue("False");
            awaitShown(keys(c -> c.shows() == Shows.SCALING_UP, byName()), "WorkersReady False");
            new Select(chromium.driver.findElement(By.id("filter-condition"))).selectByValue("");

            // By reason: any condition's or the failure's.
            new Select(chromium.driver.findElement(By.id("filter-reason"))).selectByValue("RollingUpgradeInProgress");
            awaitShown(keys(c -> c.shows() == Shows.ROLLING, byName()), "reason RollingUpgradeInProgress");
            new Select(chromium.driver.findElement(By.id("filter-reason"))).selectByValue("");

            // By namespace, then with not Ready on top of it.
            new Select(chromium.driver.findElement(By.id("filter-namespace"))).selectByValue("team-c");
            awaitShown(keys(c -> c.namespace().equals("team-c"), byName()), "namespace team-c");
            click("#states [data-state='not-ready']");
            awaitShown(keys(c -> c.namespace().equals("team-c") && c.shows() != Shows.READY, byName()), "team-c, not Ready");
            click("#clear-filters");
            awaitShown(keys(c -> true, byName()), "cleared");

            // Search by name: one cluster of the thousand; then a part of a name.
            chromium.driver.findElement(By.id("search")).sendKeys("c-0421");
            awaitShown(List.of(clusters.get(421).key()), "search c-0421");
            chromium.driver.findElement(By.id("search")).clear();
            chromium.driver.findElement(By.id("search")).sendKeys("c-04");
            awaitShown(keys(c -> c.name().startsWith("c-04"), byName()), "search c-04");
            click("#clear-filters");

            // Sort: by when Ready changed, newest first then oldest first (those without Ready yet last, by name); by
            // name backwards, from the column's header.
            Comparator<Cluster> withoutReadyLast = Comparator.comparing(c -> c.shows() == Shows.CREATING);
            new Select(chromium.driver.findElement(By.id("sort"))).selectByValue("since");
            awaitShown(keys(c -> true, withoutReadyLast.thenComparing(c -> c.shows() == Shows.CREATING ? PublishedFleet.NOW : c.readySince(),
                    Comparator.reverseOrder()).thenComparing(Cluster::key)), "since, newest first");
            new Select(chromium.driver.findElement(By.id("sort"))).selectByValue("-since");
            awaitShown(keys(c -> true, withoutReadyLast.thenComparing(c -> c.shows() == Shows.CREATING ? PublishedFleet.NOW : c.readySince())
                    .thenComparing(Cluster::key)), "since, oldest first");
            click("#fleet th[data-sort='name'] button");
            awaitShown(keys(c -> true, byName()), "name");
            click("#fleet th[data-sort='name'] button");
            awaitShown(keys(c -> true, byName().reversed()), "name, Z to A");
            assertEquals("descending", chromium.driver.findElement(By.cssSelector("#fleet th[data-sort='name']")).getAttribute("aria-sort"));
        } catch (AssertionError | RuntimeException e) {
            chromium.screenshot(Path.of("target", "fleet-page-at-scale-failure.png"));
            throw e;
        }
    }

    @Test
    void aFilteredViewOpensFromItsAddressAndFollowsLiveChanges() throws Exception {
        try {
            open("#state=not-ready&namespace=team-b&sort=-name");
            awaitShown(keys(c -> c.namespace().equals("team-b") && c.shows() != Shows.READY, byName().reversed()), "the view from the URL");
            assertEquals("team-b", new Select(chromium.driver.findElement(By.id("filter-namespace"))).getFirstSelectedOption().getText());
            chromium.script("window.fleetPageTestMark = 'same document';");

            // A Ready cluster of team-b fails: it joins the filtered view and the counts, without a reload.
            Cluster ready = clusters.stream().filter(c -> c.namespace().equals("team-b") && c.shows() == Shows.READY).findFirst().orElseThrow();
            Cluster failed = new Cluster(ready.namespace(), ready.name(), Shows.FAILED, PublishedFleet.NOW);
            fleet.publish(failed);
            List<Cluster> now = clusters.stream().map(c -> c.key().equals(failed.key()) ? failed : c).toList();
            awaitShown(now.stream().filter(c -> c.namespace().equals("team-b") && c.shows() != Shows.READY).map(Cluster::key)
                    .sorted(Comparator.reverseOrder()).toList(), "the failed cluster joins the view");
            wait.until(d -> stateCounts().get("error") == count(c -> c.shows() == Shows.FAILED) + 1);
            assertEquals(count(c -> c.shows() == Shows.READY) - 1, stateCounts().get("ready"));
            assertEquals("error", chromium.driver.findElement(By.cssSelector("tr[data-cluster='" + failed.key() + "']")).getAttribute("data-state"));
            assertEquals("same document", chromium.script("return window.fleetPageTestMark;"), "changed live, not reloaded");

            // A deleted cluster leaves the view and the counts.
            Cluster gone = now.stream().filter(c -> c.namespace().equals("team-b") && c.shows() == Shows.SCALING_UP).findFirst().orElseThrow();
            fleet.tombstone(gone);
            wait.withMessage(() -> "a deleted cluster leaves the page: " + text("#counts"))
                    .until(d -> text("#counts").startsWith((SIZE - 1) + " clusters"));
            assertTrue(chromium.driver.findElements(By.cssSelector("tr[data-cluster='" + gone.key() + "']")).isEmpty());

            // The keyboard: a row takes the focus, Enter opens its detail (and the address names it), Escape closes it.
            var row = chromium.driver.findElement(By.cssSelector("tr[data-cluster='" + failed.key() + "']"));
            row.sendKeys(Keys.ENTER);
            wait.until(d -> failed.key().equals(d.findElement(By.id("detail")).getAttribute("data-cluster")));
            assertTrue(hash().contains("cluster=" + failed.key().replace("/", "%2F")), hash());
            chromium.driver.switchTo().activeElement().sendKeys(Keys.ESCAPE);
            wait.until(d -> !d.findElement(By.id("detail")).isDisplayed());
        } catch (AssertionError | RuntimeException e) {
            chromium.screenshot(Path.of("target", "fleet-page-at-scale-failure.png"));
            throw e;
        }
    }

    private void open(String hash) {
        chromium.driver.get(root.toString().replaceAll("/$", "") + "/" + hash);
        wait.withMessage(() -> "the page shows " + SIZE + " clusters: " + text("#counts"))
                .until(d -> text("#counts").startsWith(SIZE + " clusters"));
    }

    private void awaitShown(List<String> expected, String what) {
        wait.withMessage(() -> what + ": expected " + expected.size() + " rows " + head(expected) + ", shown " + difference(expected, shown()))
                .until(d -> expected.equals(shown()));
        assertEquals(String.valueOf(expected.size()), chromium.driver.findElement(By.id("shown")).getAttribute("data-shown"), what);
    }

    @SuppressWarnings("unchecked")
    private List<String> shown() {
        return (List<String>) chromium.script(SHOWN_ROWS);
    }

    /** Where what is shown first differs from what was expected. */
    private static String difference(List<String> expected, List<String> shown) {
        int at = 0;
        while (at < Math.min(expected.size(), shown.size()) && expected.get(at).equals(shown.get(at))) {
            at++;
        }
        return shown.size() + " rows, differing at row " + at + ": expected " + head(expected.subList(at, expected.size()))
                + ", shown " + head(shown.subList(at, shown.size()));
    }

    private static String head(List<String> keys) {
        return keys.size() <= 5 ? keys.toString() : keys.subList(0, 5) + "…";
    }

    private Map<String, Integer> stateCounts() {
        Map<String, Integer> counts = new java.util.TreeMap<>();
        chromium.driver.findElements(By.cssSelector("#states [data-state]")).forEach(b -> counts.put(b.getAttribute("data-state"),
                Integer.parseInt(b.findElement(By.className("state-count")).getText())));
        return counts;
    }

    private int count(Predicate<Cluster> which) {
        return (int) clusters.stream().filter(which).count();
    }

    private List<String> keys(Predicate<Cluster> which, Comparator<Cluster> order) {
        return clusters.stream().filter(which).sorted(order).map(Cluster::key).toList();
    }

    private static Comparator<Cluster> byName() {
        return Comparator.comparing(Cluster::key);
    }

    private void click(String css) {
        chromium.driver.findElement(By.cssSelector(css)).click();
    }

    private String text(String css) {
        return chromium.driver.findElement(By.cssSelector(css)).getText();
    }

    private String hash() {
        return String.valueOf(chromium.script("return window.location.hash;"));
    }
}
