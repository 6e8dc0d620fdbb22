package io.statusaggregator.pipeline;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's chromium, headless, through its chromedriver, with a profile of its own removed on close. Both paths are
 * given, so Selenium Manager never looks for (nor downloads) a driver or a browser: these machines have no internet.
 */
final class HeadlessChromium implements AutoCloseable {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    final WebDriver driver;
    private final Path profile;

    private HeadlessChromium(WebDriver driver, Path profile) {
        this.driver = driver;
        this.profile = profile;
    }

    static HeadlessChromium start() throws IOException {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            fail("this test needs Debian's chromium and chromedriver at " + CHROMIUM + " and " + CHROMEDRIVER
                    + ": apt-get install -y chromium chromium-driver");
        }
        System.setProperty(ChromeDriverService.CHROME_DRIVER_EXE_PROPERTY, CHROMEDRIVER.toString());
        Path profile = Files.createTempDirectory("fleet-page-chromium");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        // Without the background-networking flags, Chromium's calls home fail against this machine's closed network.
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1500,1000", "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        return new HeadlessChromium(new ChromeDriver(service, options), profile);
    }

    Object script(String script, Object... arguments) {
        return ((JavascriptExecutor) driver).executeScript(script, arguments);
    }

    Path screenshot(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        Files.write(file, ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
        return file;
    }

    /** An element's HTML, for a failure's message. */
    String html(By element) {
        try {
            return driver.findElement(element).getAttribute("outerHTML");
        } catch (RuntimeException e) {
            return "(" + element + " not found: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() throws IOException {
        driver.quit();
        try (Stream<Path> files = Files.walk(profile)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
