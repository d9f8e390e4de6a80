package io.xio.spring.codec;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.core.TSFBuilder;
import tools.jackson.core.TokenStreamFactory;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.cfg.MapperBuilder;
import tools.jackson.databind.cfg.MapperBuilderState;
import java.util.function.Supplier;

/**
 * Mappers for another data format (Smile, CBOR) with everything else taken from a configured mapper: naming
 * strategy, features, modules, mix-ins, date and inclusion settings — all that Boot's {@code spring.jackson.*}
 * properties and {@code JsonMapperBuilderCustomizer} beans put on its {@code JsonMapper}. Jackson 3 has no public
 * way to change a builder's format, so this copies the builder's whole state (the way {@code rebuild()} does)
 * and swaps only the token stream factory and its format-specific features. The new factory itself is rebuilt
 * with the configured factory's settings (read and write constraints, error-report configuration, recycler pool,
 * factory and stream features): an application bounding what peers may send bounds it in every format.
 * Stateless; any thread.
 */
public final class FormatMappers
{
    private FormatMappers()
    {
    }

    /** A mapper writing {@code format} and configured like {@code configured} in every other respect. */
    public static ObjectMapper of(final ObjectMapper configured, final TokenStreamFactory format)
    {
        final TokenStreamFactory settings = configured.tokenStreamFactory();
        return new FormatBuilder(new State(configured.rebuild()), withSettingsOf(settings, format)).build();
    }

    /**
     * The JSON mapper of calls in JSON (reflection's, HTTP's): the binary codec's mapper writing JSON, so that a call
     * in JSON and a binary call read the same properties; {@code otherwise} when the codec is not on Jackson.
     */
    public static ObjectMapper json(final @Nullable XioCodec codec,
        final Supplier<? extends ObjectMapper> otherwise)
    {
        if (codec instanceof JacksonXioCodec jackson)
        {
            final ObjectMapper mapper = jackson.mapper();
            return mapper.tokenStreamFactory() instanceof tools.jackson.core.json.JsonFactory ? mapper
                : of(mapper, new tools.jackson.core.json.JsonFactory());
        }
        return otherwise.get();
    }

    /** {@code format} rebuilt with the format-neutral settings of {@code settings}; its format features stay. */
    private static TokenStreamFactory withSettingsOf(final TokenStreamFactory settings,
        final TokenStreamFactory format)
    {
        final TSFBuilder<?, ?> builder = format.rebuild()
            .streamReadConstraints(settings.streamReadConstraints())
            .streamWriteConstraints(settings.streamWriteConstraints())
            .errorReportConfiguration(settings.errorReportConfiguration())
            .recyclerPool(settings._getRecyclerPool());
        for (final TokenStreamFactory.Feature feature : TokenStreamFactory.Feature.values())
        {
            builder.configure(feature, settings.isEnabled(feature));
        }
        for (final StreamReadFeature feature : StreamReadFeature.values())
        {
            builder.configure(feature, settings.isEnabled(feature));
        }
        for (final StreamWriteFeature feature : StreamWriteFeature.values())
        {
            builder.configure(feature, settings.isEnabled(feature));
        }
        return builder.build();
    }

    /** A builder's settings, taken whole. */
    private static final class State extends MapperBuilderState
    {
        private static final long serialVersionUID = 1L;

        State(final MapperBuilder<?, ?> source)
        {
            super(source);
        }

        @Override
        protected Object readResolve()
        {
            throw new UnsupportedOperationException("not serialized: the mapper is rebuilt at start-up");
        }
    }

    private static final class FormatBuilder extends MapperBuilder<ObjectMapper, FormatBuilder>
    {
        FormatBuilder(final MapperBuilderState settings, final TokenStreamFactory format)
        {
            super(settings);
            // The stream features (the format-neutral ones) stay; the format's own are the new factory's.
            _streamFactory = format;
            _formatReadFeatures = format.getFormatReadFeatures();
            _formatWriteFeatures = format.getFormatWriteFeatures();
        }

        @Override
        public ObjectMapper build()
        {
            return new FormatMapper(this);
        }

        @Override
        protected MapperBuilderState _saveState()
        {
            return new State(this);
        }
    }

    private static final class FormatMapper extends ObjectMapper
    {
        private static final long serialVersionUID = 1L;

        FormatMapper(final FormatBuilder builder)
        {
            super(builder);
        }

        /** Jackson asks subclasses for this: what {@link FormatMappers#of} is given may be one of its own. */
        @Override
        @SuppressWarnings("unchecked")
        public FormatBuilder rebuild()
        {
            return new FormatBuilder(_savedBuilderState, tokenStreamFactory());
        }
    }
}
