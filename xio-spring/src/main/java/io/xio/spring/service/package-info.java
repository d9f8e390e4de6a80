/** The server side: exporting {@code @XioService} beans, dispatching their calls, the portals' life cycle. */
@NullMarked
package io.xio.spring.service;

import org.jspecify.annotations.NullMarked;
