package io.xio.engine.transport;

import java.nio.channels.SelectionKey;

/** Attached to a selection key; called on the context thread when the key is ready. */
public interface SelectionHandler
{
    void onSelected(SelectionKey key);
}
