package io.xio.spring.autoconfigure.service;

import io.xio.spring.service.XioExceptionHandlers;
import io.xio.annotation.XioExceptionHandler;
import io.xio.spring.error.XioError;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.error.XioErrorDisclosure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.io.IOException;
import java.lang.reflect.Method;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a handler's answer and a broadly declared method disclose: a type travels only when the method declares it
 * (not {@code throws Exception}, {@code RuntimeException} or {@code Throwable}) or include-exception is on; and
 * what undecodable arguments, the peer's fault, are answered and logged with.
 */
@ExtendWith(OutputCaptureExtension.class)
class XioExceptionHandlersDisclosureTest
{
    /** The exported interface. */
    interface Api
    {
        String broad() throws Exception;

        String broadRuntime() throws RuntimeException;

        String broadest() throws Throwable;

        String narrow() throws IOException;
    }

    /** Words IllegalStateException for its callers. */
    static class Service
    {
        @XioExceptionHandler
        XioError illegalState(final IllegalStateException ex)
        {
            return XioError.of(XioErrorCode.FAILED_PRECONDITION, "not now");
        }
    }

    private static Method method(final String name) throws NoSuchMethodException
    {
        return Api.class.getMethod(name);
    }

    @Test
    void aHandlersAnswerForAnUndeclaredTypeHidesTheType() throws Exception
    {
        final XioExceptionHandlers hidden = XioExceptionHandlers.of(new Service(), "api", Api.class, List.of());
        final XioExceptionHandlers.Answer answer = hidden.answer(new IllegalStateException("internal"),
            method("narrow"));
        assertThat(answer.type()).isEqualTo(XioErrorDisclosure.HIDDEN_TYPE);
        assertThat(answer.error()).isEqualTo(XioError.of(XioErrorCode.FAILED_PRECONDITION, "not now"));
        // For development, the type travels.
        assertThat(XioExceptionHandlers.of(new Service(), "api", Api.class, List.of(), XioErrorDisclosure.SHOWN)
            .answer(new IllegalStateException("internal"), method("narrow")).type())
            .isEqualTo(IllegalStateException.class.getName());
    }

    @Test
    void undecodableArgumentsAreTheCallersInvalidArgumentAndLoggedOnceWithoutTheInput(final CapturedOutput output)
    {
        final XioExceptionHandlers handlers = XioExceptionHandlers.of(new Object(), "api", Api.class, List.of());
        for (int i = 0; i < 50; i++)
        {
            final XioExceptionHandlers.Answer answer = handlers.undecodable(
                new IllegalArgumentException("Unexpected character ('<' (code 60)): PEER-INPUT-" + i));
            assertThat(answer.error().code()).isEqualTo(XioErrorCode.INVALID_ARGUMENT);
            assertThat(answer.type()).isEqualTo(XioErrorDisclosure.HIDDEN_TYPE);
            assertThat(answer.error().message()).doesNotContain("PEER-INPUT");
        }
        assertThat(output.getAll()).doesNotContain("PEER-INPUT").doesNotContain("ERROR");
        assertThat(output.getAll().lines().filter(line -> line.contains("could not be decoded"))).hasSize(1);
    }

    @Test
    void throwsExceptionRuntimeExceptionOrThrowableDeclaresNothing() throws Exception
    {
        final XioExceptionHandlers handlers = XioExceptionHandlers.of(new Object(), "api", Api.class, List.of());
        for (final String name : List.of("broad", "broadRuntime", "broadest"))
        {
            final XioExceptionHandlers.Answer answer = handlers.answer(
                new UnsupportedOperationException("secret detail"), method(name));
            assertThat(answer.type()).as(name).isEqualTo(XioErrorDisclosure.HIDDEN_TYPE);
            assertThat(answer.error().message()).as(name).doesNotContain("secret detail").contains("error id");
        }
        // A narrow declaration still discloses its type.
        assertThat(handlers.answer(new IOException("disk"), method("narrow")).type())
            .isEqualTo(IOException.class.getName());
    }
}
