package io.statusaggregator.cli;

import org.eclipse.microprofile.config.ConfigProvider;
import picocli.CommandLine.IVersionProvider;

final class VersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
        return new String[] {"status-aggregator " + ConfigProvider.getConfig()
                .getOptionalValue("quarkus.application.version", String.class).orElse("unknown")};
    }
}
