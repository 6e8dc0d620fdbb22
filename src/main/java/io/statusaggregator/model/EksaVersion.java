package io.statusaggregator.model;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** An EKS Anywhere release version, {@code vMAJOR.MINOR.PATCH} semver (a pre-release or build suffix is kept). */
public record EksaVersion(int major, int minor, int patch, String suffix) implements Comparable<EksaVersion> {
    private static final Pattern SEMVER =
            Pattern.compile("v(\\d{1,6})\\.(\\d{1,6})\\.(\\d{1,6})((?:-[0-9A-Za-z.-]+)?(?:\\+[0-9A-Za-z.-]+)?)");

    public static Optional<EksaVersion> parse(String text) {
        Matcher m = SEMVER.matcher(text);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new EksaVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                Integer.parseInt(m.group(3)), m.group(4)));
    }

    /** The release line, {@code vMAJOR.MINOR}. */
    public String minorLine() {
        return "v" + major + "." + minor;
    }

    /** Orders by major, minor and patch; the suffix does not order releases. */
    @Override
    public int compareTo(EksaVersion other) {
        if (major != other.major) {
            return Integer.compare(major, other.major);
        }
        if (minor != other.minor) {
            return Integer.compare(minor, other.minor);
        }
        return Integer.compare(patch, other.patch);
    }

    @Override
    public String toString() {
        return "v" + major + "." + minor + "." + patch + suffix;
    }
}
