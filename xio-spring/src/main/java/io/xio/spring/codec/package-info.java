/** How method arguments and results travel: the codec contract and its Jackson (Smile, JSON, CBOR) codec. */
@NullMarked
package io.xio.spring.codec;

import org.jspecify.annotations.NullMarked;
