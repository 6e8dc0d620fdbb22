package io.statusaggregator.access;

import jakarta.ws.rs.Consumes;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.NewCookie;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The browser's way in when requests are reviewed: a form takes a Kubernetes bearer token, the API server reviews it
 * (who, and may they list Clusters), and the browser keeps it in an HttpOnly, SameSite=Strict cookie for the session,
 * which {@link KubernetesTokenMechanism} reads on each request. Nothing is kept on the server, so every replica
 * accepts the cookie. When requests are not reviewed (the embedded default) there is nothing to sign in to.
 */
@Path("/")
@Produces(MediaType.TEXT_HTML)
public class SignInResource {
    private static final String PAGE = page();

    private final AccessReviews reviews;

    SignInResource(AccessReviews reviews) {
        this.reviews = reviews;
    }

    @GET
    @Path(KubernetesTokenMechanism.SIGN_IN_PATH)
    public Response form() {
        if (!reviews.reviewing()) {
            return toFleet().build();
        }
        return Response.ok(PAGE).build();
    }

    @POST
    @Path(KubernetesTokenMechanism.SIGN_IN_PATH)
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Uni<Response> signIn(@FormParam("token") String token, @Context UriInfo request) {
        boolean https = "https".equalsIgnoreCase(request.getRequestUri().getScheme());
        // A Uni: the form is read on the event loop, so that a slow one holds no worker thread; the reviews, calls to
        // the API server, run on one once it has arrived.
        return Uni.createFrom().item(() -> signIn(token, https))
                .runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
    }

    private Response signIn(String token, boolean https) {
        if (!reviews.reviewing()) {
            return toFleet().build();
        }
        String trimmed = token == null ? "" : token.strip();
        if (!KubernetesTokenMechanism.plausible(trimmed)) {
            return refused(400, "That is not a bearer token: paste the token alone, without spaces or line breaks.");
        }
        Optional<KubernetesUser> user;
        try {
            user = reviews.authenticate(trimmed);
            if (user.isPresent() && !reviews.allowed(user.get(), RequiredAccess.LIST_CLUSTERS)) {
                return refused(
                        403,
                        "The cluster does not allow " + user.get().name().replaceAll("[^A-Za-z0-9:@._-]", "?")
                                + " to list EKS-A Clusters in every namespace.");
            }
        } catch (AccessReviews.ReviewUnavailable unavailable) {
            String why = unavailable.status() == 429 ? "Too many sign-ins at once; try again in a moment."
                    : "The Kubernetes API did not answer; try again shortly.";
            return Response.fromResponse(refused(unavailable.status(), why))
                    .header("Retry-After", unavailable.retryAfter())
                    .build();
        }
        if (user.isEmpty()) {
            return refused(401, "The cluster does not accept this token (unknown, expired or revoked).");
        }
        return toFleet()
                .cookie(new NewCookie.Builder(KubernetesTokenMechanism.COOKIE)
                        .value(trimmed)
                        .path("/")
                        .httpOnly(true)
                        .secure(https)
                        .sameSite(NewCookie.SameSite.STRICT)
                        .build())
                .build();
    }

    /** Forgets the browser's token. */
    @POST
    @Path("/sign-out")
    public Response signOut() {
        return toPath(KubernetesTokenMechanism.SIGN_IN_PATH)
                .cookie(new NewCookie.Builder(KubernetesTokenMechanism.COOKIE).value("").path("/").httpOnly(true)
                        .sameSite(NewCookie.SameSite.STRICT).maxAge(0).build()).build();
    }

    private static Response.ResponseBuilder toFleet() {
        return toPath("/");
    }

    /**
     * A 303 to a path of this server: relative, as JAX-RS would make it absolute from the request's own Host header.
     */
    private static Response.ResponseBuilder toPath(String path) {
        return Response.status(Response.Status.SEE_OTHER).header(HttpHeaders.LOCATION, path);
    }

    /** The form again with why; {@code why} is this class's own text (and a user name reduced to safe characters). */
    private static Response refused(int status, String why) {
        return Response.status(status).type(MediaType.TEXT_HTML)
                .entity(PAGE.replace("<!--refusal-->", "<p class=\"refused\" id=\"refusal\">" + why + "</p>")).build();
    }

    private static String page() {
        try (InputStream in = SignInResource.class.getResourceAsStream("/access/sign-in.html")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
