package io.xio.spring.http;

import io.xio.spring.error.XioErrorCode;
import io.xio.spring.service.XioExceptionHandlers;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import tools.jackson.databind.ObjectMapper;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes a failed call's answer as an RFC 9457 problem ({@value #PROBLEM_JSON}): Spring's {@link ProblemDetail}
 * with the status its xio code maps to ({@link XioHttpStatus}), the HTTP reason as its title, the message an xio
 * caller would get (as the service's handlers and its error disclosure word it) as its detail, and two extension
 * members: {@value #CODE} (the xio error code's name) and {@value #EXCEPTION} (the exception type an xio caller would
 * be told). Stateless; any thread.
 */
public final class XioHttpProblems
{
    /** The media type of a problem. */
    public static final String PROBLEM_JSON = "application/problem+json";
    /** The problem member naming the xio error code. */
    public static final String CODE = "code";
    /** The problem member naming the exception type, as an xio caller is told it. */
    public static final String EXCEPTION = "exception";

    private final ObjectMapper json;

    XioHttpProblems(final ObjectMapper json)
    {
        this.json = json;
    }

    /** The problem of an answer the service's handlers worded. */
    public static ProblemDetail of(final XioExceptionHandlers.Answer answer)
    {
        final XioErrorCode code = answer.error().code();
        final ProblemDetail problem = of(XioHttpStatus.of(code), code, answer.error().message());
        problem.setProperty(EXCEPTION, answer.type());
        return problem;
    }

    /** A problem of xio's own words. */
    public static ProblemDetail of(final int status, final XioErrorCode code, final String message)
    {
        final ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatusCode.valueOf(status), message);
        final HttpStatus known = HttpStatus.resolve(status);
        problem.setTitle(known != null ? known.getReasonPhrase() : status == XioHttpStatus.CLIENT_CLOSED_REQUEST
            ? "Client Closed Request" : "Error");
        problem.setProperty(CODE, code.name());
        return problem;
    }

    /** The problem as the JSON document RFC 9457 describes: its extension members beside the standard ones. */
    public byte[] encode(final ProblemDetail problem)
    {
        final Map<String, Object> members = new LinkedHashMap<>();
        members.put("type", problem.getType() == null ? "about:blank" : problem.getType().toString());
        if (problem.getTitle() != null)
        {
            members.put("title", problem.getTitle());
        }
        members.put("status", problem.getStatus());
        if (problem.getDetail() != null)
        {
            members.put("detail", problem.getDetail());
        }
        if (problem.getInstance() != null)
        {
            members.put("instance", problem.getInstance().toString());
        }
        if (problem.getProperties() != null)
        {
            members.putAll(problem.getProperties());
        }
        return json.writeValueAsBytes(members);
    }
}
