package io.statusaggregator.access;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which question a path puts to the authorizer. */
class RequiredAccessTest {
    @ParameterizedTest(name = "{0} needs {1}")
    @CsvSource(delimiter = '|', value = {
            "/q/metrics | OnUrl[verb=get, path=/q/metrics]",
            "/q/metrics/ | OnUrl[verb=get, path=/q/metrics]",
            "/q/health/live | Open[]",
            "/q/health/ready | Open[]",
            "/admission/clusters | Open[]",
            "/sign-in | Open[]",
            "/sign-out | Open[]",
            "/no-such-page | AnyUser[]",
            "/q/health | Open[]",
            "/q/other | AnyUser[]",
            "/admission/clusters/x | AnyUser[]",
            // As the REST layer routes them: a doubled or trailing slash counts for nothing, a ';' is refused to all.
            "/upgrade-check/default/bravo/ | OnResource[verb=get, group=anywhere.eks.amazonaws.com, resource=clusters, namespace=default, name=bravo]",
            "//upgrade-check//default/bravo | OnResource[verb=get, group=anywhere.eks.amazonaws.com, resource=clusters, namespace=default, name=bravo]",
            "//fleet/clusters | OnResource[verb=list, group=anywhere.eks.amazonaws.com, resource=clusters, namespace=, name=]",
            "/fl%65et/clusters | OnResource[verb=list, group=anywhere.eks.amazonaws.com, resource=clusters, namespace=, name=]",
            "/fleet;x/clusters | Nobody[]",
            "/fleet;/events | Nobody[]",
            "/upgrade-check;/default/bravo | Nobody[]",
            "/upgrade-check/default/bravo;x | Nobody[]",
            "/q/health;x/../metrics | Nobody[]",
            "/sign-in;x | Nobody[]",
            "/ | OnResource[verb=list, group=anywhere.eks.amazonaws.com, resource=clusters, namespace=, name=]",
            "/index.html | OnResource[verb=list, group=anywhere.eks.amazonaws.com, resource=clusters, namespace=, name=]",
            "/fleet | OnResource[verb=list, group=anywhere.eks.amazonaws.com, resource=clusters, namespace=, name=]",
            "/fleet/events | OnResource[verb=list, group=anywhere.eks.amazonaws.com, resource=clusters, namespace=, name=]",
            "/fleet/clusters/default/bravo/transitions | OnResource[verb=list, group=anywhere.eks.amazonaws.com, resource=clusters, namespace=, name=]",
            "/fleet/clusters/default/bravo/tree | OnResource[verb=list, group=anywhere.eks.amazonaws.com, resource=clusters, namespace=, name=]",
            "/upgrade-check/default/bravo | OnResource[verb=get, group=anywhere.eks.amazonaws.com, resource=clusters, namespace=default, name=bravo]",
            "/upgrade-check/team-a/prod.eu-1 | OnResource[verb=get, group=anywhere.eks.amazonaws.com, resource=clusters, namespace=team-a, name=prod.eu-1]",
            // Percent-encoded letters are the letters, as the endpoint reads them.
            "/upgrade-check/default/br%61vo | OnResource[verb=get, group=anywhere.eks.amazonaws.com, resource=clusters, namespace=default, name=bravo]",
            // Not two Kubernetes names: no Cluster to ask about; a user still, for the endpoint's 400.
            "/upgrade-check/default/bravo%3Fx%3D1 | AnyUser[]",
            "/upgrade-check/default/bravo%2Falpha | AnyUser[]",
            "/upgrade-check/default/Bravo | AnyUser[]",
            "/upgrade-check/default | AnyUser[]",
            "/upgrade-check/default/bravo/x | AnyUser[]",
            "/upgrade-check/default/%2E%2E | AnyUser[]",
            "/upgrade-check/default/%zz | AnyUser[]",
            "/upgrade-check/default/%FF%FE | AnyUser[]",
            "/upgrade-check/default/名前 | AnyUser[]",
            "/upgrade-check | AnyUser[]",
    })
    void aPathNeedsWhatItShows(String path, String access) {
        assertEquals(access, RequiredAccess.of(path).toString());
    }
}
