package io.statusaggregator.embedded;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Optional;
import java.util.Set;

/**
 * The embedded default's state directory, where it writes the kubeconfig and the broker's address for the commands
 * run beside it ({@code aggregator.embedded.kubeconfig}'s directory; {@code /tmp/status-aggregator} by default). In a
 * directory another user owns or may write, that user could read the kubeconfig, or plant a kubeconfig or a broker
 * address that {@code kubectl}, {@code watch} and {@code alerts} would then trust: so it is used only when it is this
 * user's own and no one else may write it, and made so (0700) where it is missing.
 */
public final class StateDirectory {
    private static final Set<PosixFilePermission> WRITABLE_BY_OTHERS = Set.of(PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.OTHERS_WRITE);
    private static final String ELSEWHERE = "or set aggregator.embedded.kubeconfig (AGGREGATOR_EMBEDDED_KUBECONFIG) "
            + "to a file in a directory of your own";

    private StateDirectory() {
    }

    /** Creates {@code directory} (0700) where it is missing; then {@link #refusal} of it. */
    public static Optional<String> prepare(Path directory) throws IOException {
        Path absolute = directory.toAbsolutePath();
        if (!Files.exists(absolute, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(absolute,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        return refusal(absolute);
    }

    /**
     * Why {@code directory} cannot be used, in one line naming it and what to do, or empty when it is this user's own
     * and private. A file system without POSIX owners and modes is not judged.
     */
    public static Optional<String> refusal(Path directory) throws IOException {
        Path absolute = directory.toAbsolutePath();
        if (!FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            return Optional.empty();
        }
        UserPrincipal me = FileSystems.getDefault().getUserPrincipalLookupService()
                .lookupPrincipalByName(System.getProperty("user.name"));
        // A link is judged as what it is too: whoever owns it decides where it points.
        PosixFileAttributes link = Files.readAttributes(absolute, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (link.isSymbolicLink() && !link.owner().equals(me)) {
            return Optional.of(notOwn(absolute, "is a symbolic link that belongs to " + link.owner().getName(), me));
        }
        if (!Files.isDirectory(absolute)) {
            return Optional.of("the embedded default's state directory " + absolute + " is not a directory: remove it, "
                    + ELSEWHERE);
        }
        PosixFileAttributes attributes = Files.readAttributes(absolute, PosixFileAttributes.class);
        if (!attributes.owner().equals(me)) {
            return Optional.of(notOwn(absolute, "belongs to " + attributes.owner().getName(), me));
        }
        if (attributes.permissions().stream().anyMatch(WRITABLE_BY_OTHERS::contains)) {
            return Optional.of("the embedded default's state directory " + absolute + " may be written by others ("
                    + PosixFilePermissions.toString(attributes.permissions()) + "): chmod 700 " + absolute + ", "
                    + ELSEWHERE);
        }
        return Optional.empty();
    }

    private static String notOwn(Path directory, String belongs, UserPrincipal me) {
        return "the embedded default's state directory " + directory + " " + belongs + ", not to " + me.getName()
                + ": remove it (its owner or root can), " + ELSEWHERE;
    }
}
