/** Auto-configuration of HTTP/JSON access to the exported services on the application's web server. */
@NullMarked
package io.xio.spring.autoconfigure.http;

import org.jspecify.annotations.NullMarked;
