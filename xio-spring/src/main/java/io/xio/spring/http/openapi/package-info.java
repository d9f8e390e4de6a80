/**
 * An OpenAPI 3.1 document of the HTTP/JSON routes of the exported services ({@code POST {prefix}/{service}/{method}}),
 * made from the reflection's descriptions and JSON Schemas
 * ({@link io.xio.spring.http.openapi.OpenApiDocumentBuilder}), so that Swagger UI and generated clients in any
 * language can call them.
 */
@NullMarked
package io.xio.spring.http.openapi;

import org.jspecify.annotations.NullMarked;
