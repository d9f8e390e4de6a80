/*
 * libdisni: xio's own implementation of the JNI interface that DiSNI 2.1's Java side declares in
 * com.ibm.disni.verbs.impl.NativeDispatcher (the upstream project does not ship a native library).
 *
 * Conventions, as the Java side expects them:
 *  - every handle (event channel, cm id, context, pd, cq, qp, mr, completion channel) is the C pointer
 *    cast to a jlong; "objId" on the Java side;
 *  - structs the Java side lays out itself (ibv_send_wr, ibv_recv_wr, ibv_sge, ibv_wc, sockaddr_in) live
 *    in direct buffers whose addresses arrive as jlongs; at start-up Java compares their sizes and the
 *    rdma offsets in ibv_send_wr with ours and adopts ours, and checks the interface version (32);
 *  - calls declared "throws IOException" throw one naming the verb and errno; the others return < 0.
 */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <jni.h>

#define DISNI_JNI_VERSION 32
#define NAT(name) Java_com_ibm_disni_verbs_impl_NativeDispatcher__1##name
#define PTR(type, handle) ((type *)(intptr_t)(handle))
#define HANDLE(ptr) ((jlong)(intptr_t)(ptr))

/* Most of what rdma_cm offers for READ and atomics; rdma_cm lowers these to what both ends allow. */
#define RD_ATOMIC_DEPTH 16
#define MAX_SGE 4

static void throw_io(JNIEnv *env, const char *verb, int err)
{
    char message[256];
    snprintf(message, sizeof message, "%s failed: %s (errno %d)", verb, strerror(err), err);
    jclass type = (*env)->FindClass(env, "java/io/IOException");
    if (type != NULL) {
        (*env)->ThrowNew(env, type, message);
    }
}

/* ---- rdma_cm ---------------------------------------------------------------------------------- */

JNIEXPORT jlong JNICALL NAT(createEventChannel)(JNIEnv *env, jobject self)
{
    struct rdma_event_channel *channel = rdma_create_event_channel();
    if (channel == NULL) {
        throw_io(env, "rdma_create_event_channel", errno);
        return -1;
    }
    return HANDLE(channel);
}

JNIEXPORT jlong JNICALL NAT(createId)(JNIEnv *env, jobject self, jlong channel, jshort port_space)
{
    struct rdma_cm_id *id = NULL;
    if (rdma_create_id(PTR(struct rdma_event_channel, channel), &id, NULL, (enum rdma_port_space)port_space)) {
        throw_io(env, "rdma_create_id", errno);
        return -1;
    }
    return HANDLE(id);
}

JNIEXPORT jlong JNICALL NAT(createQP)(JNIEnv *env, jobject self, jlong id, jlong pd, jlong send_cq,
    jlong recv_cq, jint qp_type, jint max_send_wr, jint max_recv_wr, jint max_inline)
{
    struct rdma_cm_id *cm_id = PTR(struct rdma_cm_id, id);
    struct ibv_qp_init_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.send_cq = PTR(struct ibv_cq, send_cq);
    attr.recv_cq = PTR(struct ibv_cq, recv_cq);
    attr.qp_type = (enum ibv_qp_type)qp_type;
    attr.cap.max_send_wr = max_send_wr;
    attr.cap.max_recv_wr = max_recv_wr;
    attr.cap.max_send_sge = MAX_SGE;
    attr.cap.max_recv_sge = MAX_SGE;
    attr.cap.max_inline_data = max_inline;
    if (rdma_create_qp(cm_id, PTR(struct ibv_pd, pd), &attr)) {
        throw_io(env, "rdma_create_qp", errno);
        return -1;
    }
    return HANDLE(cm_id->qp);
}

JNIEXPORT void JNICALL NAT(bindAddr)(JNIEnv *env, jobject self, jlong id, jlong sockaddr)
{
    if (rdma_bind_addr(PTR(struct rdma_cm_id, id), PTR(struct sockaddr, sockaddr))) {
        throw_io(env, "rdma_bind_addr", errno);
    }
}

JNIEXPORT void JNICALL NAT(listen)(JNIEnv *env, jobject self, jlong id, jint backlog)
{
    if (rdma_listen(PTR(struct rdma_cm_id, id), backlog)) {
        throw_io(env, "rdma_listen", errno);
    }
}

JNIEXPORT void JNICALL NAT(resolveAddr)(JNIEnv *env, jobject self, jlong id, jlong src, jlong dst, jint timeout_ms)
{
    if (rdma_resolve_addr(PTR(struct rdma_cm_id, id), PTR(struct sockaddr, src), PTR(struct sockaddr, dst),
            timeout_ms)) {
        throw_io(env, "rdma_resolve_addr", errno);
    }
}

JNIEXPORT void JNICALL NAT(resolveRoute)(JNIEnv *env, jobject self, jlong id, jint timeout_ms)
{
    if (rdma_resolve_route(PTR(struct rdma_cm_id, id), timeout_ms)) {
        throw_io(env, "rdma_resolve_route", errno);
    }
}

/*
 * Waits up to timeout_ms (-1: forever) for the next event; writes its listen id and id at the two
 * addresses, acknowledges it (the Java side keeps only those two pointers and the type) and returns the
 * type, or -1 when none came in time or the channel failed.
 */
JNIEXPORT jint JNICALL NAT(getCmEvent)(JNIEnv *env, jobject self, jlong channel, jlong listen_id_out,
    jlong id_out, jint timeout_ms)
{
    struct rdma_event_channel *events = PTR(struct rdma_event_channel, channel);
    struct pollfd ready = { .fd = events->fd, .events = POLLIN };
    if (poll(&ready, 1, timeout_ms) <= 0) {
        return -1;
    }
    struct rdma_cm_event *event = NULL;
    if (rdma_get_cm_event(events, &event)) {
        return -1;
    }
    *PTR(jlong, listen_id_out) = HANDLE(event->listen_id);
    *PTR(jlong, id_out) = HANDLE(event->id);
    jint type = (jint)event->event;
    rdma_ack_cm_event(event);
    return type;
}

static void fill_conn_param(struct rdma_cm_id *id, struct rdma_conn_param *param, jint retry, jint rnr_retry)
{
    memset(param, 0, sizeof *param);
    param->retry_count = (uint8_t)retry;
    param->rnr_retry_count = (uint8_t)rnr_retry;
    /* RDMA READ needs outstanding-read resources on both ends: offer what the device allows. */
    struct ibv_device_attr device;
    int depth = 1;
    if (id->verbs != NULL && ibv_query_device(id->verbs, &device) == 0) {
        depth = device.max_qp_rd_atom < device.max_qp_init_rd_atom ? device.max_qp_rd_atom : device.max_qp_init_rd_atom;
    }
    if (depth > RD_ATOMIC_DEPTH) {
        depth = RD_ATOMIC_DEPTH;
    }
    param->responder_resources = (uint8_t)depth;
    param->initiator_depth = (uint8_t)depth;
}

JNIEXPORT void JNICALL NAT(connect)(JNIEnv *env, jobject self, jlong id, jint retry, jint rnr_retry,
    jlong private_data, jbyte private_data_len)
{
    struct rdma_cm_id *cm_id = PTR(struct rdma_cm_id, id);
    struct rdma_conn_param param;
    fill_conn_param(cm_id, &param, retry, rnr_retry);
    param.private_data = PTR(void, private_data);
    param.private_data_len = (uint8_t)private_data_len;
    if (rdma_connect(cm_id, &param)) {
        throw_io(env, "rdma_connect", errno);
    }
}

JNIEXPORT void JNICALL NAT(accept)(JNIEnv *env, jobject self, jlong id, jint retry, jint rnr_retry)
{
    struct rdma_cm_id *cm_id = PTR(struct rdma_cm_id, id);
    struct rdma_conn_param param;
    fill_conn_param(cm_id, &param, retry, rnr_retry);
    if (rdma_accept(cm_id, &param)) {
        throw_io(env, "rdma_accept", errno);
    }
}

/* Events are acknowledged in getCmEvent already. */
JNIEXPORT jint JNICALL NAT(ackCmEvent)(JNIEnv *env, jobject self, jint event)
{
    return 0;
}

JNIEXPORT jint JNICALL NAT(disconnect)(JNIEnv *env, jobject self, jlong id)
{
    return rdma_disconnect(PTR(struct rdma_cm_id, id)) ? -errno : 0;
}

JNIEXPORT jint JNICALL NAT(destroyEventChannel)(JNIEnv *env, jobject self, jlong channel)
{
    rdma_destroy_event_channel(PTR(struct rdma_event_channel, channel));
    return 0;
}

JNIEXPORT jint JNICALL NAT(destroyCmId)(JNIEnv *env, jobject self, jlong id)
{
    return rdma_destroy_id(PTR(struct rdma_cm_id, id)) ? -errno : 0;
}

JNIEXPORT jint JNICALL NAT(destroyQP)(JNIEnv *env, jobject self, jlong id)
{
    rdma_destroy_qp(PTR(struct rdma_cm_id, id));
    return 0;
}

static jint copy_sockaddr(const struct sockaddr *from, jlong to)
{
    if (from == NULL || from->sa_family != AF_INET) {
        return -1;
    }
    memcpy(PTR(void, to), from, sizeof(struct sockaddr_in));
    return 0;
}

JNIEXPORT jint JNICALL NAT(getSrcAddr)(JNIEnv *env, jobject self, jlong id, jlong sockaddr)
{
    return copy_sockaddr(rdma_get_local_addr(PTR(struct rdma_cm_id, id)), sockaddr);
}

JNIEXPORT jint JNICALL NAT(getDstAddr)(JNIEnv *env, jobject self, jlong id, jlong sockaddr)
{
    return copy_sockaddr(rdma_get_peer_addr(PTR(struct rdma_cm_id, id)), sockaddr);
}

JNIEXPORT jint JNICALL NAT(destroyEp)(JNIEnv *env, jobject self, jlong id)
{
    rdma_destroy_ep(PTR(struct rdma_cm_id, id));
    return 0;
}

/* ---- verbs ------------------------------------------------------------------------------------ */

JNIEXPORT jlong JNICALL NAT(allocPd)(JNIEnv *env, jobject self, jlong context)
{
    struct ibv_pd *pd = ibv_alloc_pd(PTR(struct ibv_context, context));
    if (pd == NULL) {
        throw_io(env, "ibv_alloc_pd", errno);
        return -1;
    }
    return HANDLE(pd);
}

JNIEXPORT jlong JNICALL NAT(createCompChannel)(JNIEnv *env, jobject self, jlong context)
{
    struct ibv_comp_channel *channel = ibv_create_comp_channel(PTR(struct ibv_context, context));
    if (channel == NULL) {
        throw_io(env, "ibv_create_comp_channel", errno);
        return -1;
    }
    return HANDLE(channel);
}

JNIEXPORT jlong JNICALL NAT(createCQ)(JNIEnv *env, jobject self, jlong context, jlong channel, jint entries,
    jint vector)
{
    struct ibv_cq *cq = ibv_create_cq(PTR(struct ibv_context, context), entries, NULL,
        PTR(struct ibv_comp_channel, channel), vector);
    if (cq == NULL) {
        throw_io(env, "ibv_create_cq", errno);
        return -1;
    }
    return HANDLE(cq);
}

/* rdma_cm moves the QP through its states; DiSNI passes no attributes. */
JNIEXPORT jint JNICALL NAT(modifyQP)(JNIEnv *env, jobject self, jlong qp, jlong attr)
{
    return 0;
}

/* Registers [address, address + length); writes lkey, rkey and the pd handle where Java asks. */
JNIEXPORT jlong JNICALL NAT(regMr)(JNIEnv *env, jobject self, jlong pd, jlong address, jint length, jint access,
    jlong lkey_out, jlong rkey_out, jlong handle_out)
{
    struct ibv_mr *mr = ibv_reg_mr(PTR(struct ibv_pd, pd), PTR(void, address), (size_t)length, access);
    if (mr == NULL) {
        throw_io(env, "ibv_reg_mr", errno);
        return -1;
    }
    *PTR(jint, lkey_out) = (jint)mr->lkey;
    *PTR(jint, rkey_out) = (jint)mr->rkey;
    *PTR(jint, handle_out) = (jint)mr->handle;
    return HANDLE(mr);
}

/* On-demand paging and the experimental prefetch verb are not offered. */
JNIEXPORT jint JNICALL NAT(queryOdpSupport)(JNIEnv *env, jobject self, jlong context)
{
    return -1;
}

JNIEXPORT jint JNICALL NAT(expPrefetchMr)(JNIEnv *env, jobject self, jlong mr, jlong address, jint length)
{
    throw_io(env, "ibv_exp_prefetch_mr", ENOSYS);
    return -1;
}

JNIEXPORT void JNICALL NAT(deregMr)(JNIEnv *env, jobject self, jlong mr)
{
    int err = ibv_dereg_mr(PTR(struct ibv_mr, mr));
    if (err) {
        throw_io(env, "ibv_dereg_mr", err);
    }
}

/* The work requests are a chain Java wrote into native memory, next pointers included. */
JNIEXPORT void JNICALL NAT(postSend)(JNIEnv *env, jobject self, jlong qp, jlong wr)
{
    struct ibv_send_wr *bad = NULL;
    int err = ibv_post_send(PTR(struct ibv_qp, qp), PTR(struct ibv_send_wr, wr), &bad);
    if (err) {
        throw_io(env, "ibv_post_send", err);
    }
}

JNIEXPORT void JNICALL NAT(postRecv)(JNIEnv *env, jobject self, jlong qp, jlong wr)
{
    struct ibv_recv_wr *bad = NULL;
    int err = ibv_post_recv(PTR(struct ibv_qp, qp), PTR(struct ibv_recv_wr, wr), &bad);
    if (err) {
        throw_io(env, "ibv_post_recv", err);
    }
}

/* Waits up to timeout_ms for a completion event; returns 0 when one came (not yet acked), -1 otherwise. */
JNIEXPORT jint JNICALL NAT(getCqEvent)(JNIEnv *env, jobject self, jlong channel, jint timeout_ms)
{
    struct ibv_comp_channel *events = PTR(struct ibv_comp_channel, channel);
    struct pollfd ready = { .fd = events->fd, .events = POLLIN };
    if (poll(&ready, 1, timeout_ms) <= 0) {
        return -1;
    }
    struct ibv_cq *cq = NULL;
    void *cq_context = NULL;
    return ibv_get_cq_event(events, &cq, &cq_context) ? -1 : 0;
}

JNIEXPORT jint JNICALL NAT(pollCQ)(JNIEnv *env, jobject self, jlong cq, jint entries, jlong wc)
{
    int n = ibv_poll_cq(PTR(struct ibv_cq, cq), entries, PTR(struct ibv_wc, wc));
    if (n < 0) {
        throw_io(env, "ibv_poll_cq", -n);
    }
    return n;
}

JNIEXPORT jint JNICALL NAT(reqNotifyCQ)(JNIEnv *env, jobject self, jlong cq, jint solicited_only)
{
    int err = ibv_req_notify_cq(PTR(struct ibv_cq, cq), solicited_only);
    if (err) {
        throw_io(env, "ibv_req_notify_cq", err);
    }
    return err;
}

JNIEXPORT jint JNICALL NAT(ackCqEvent)(JNIEnv *env, jobject self, jlong cq, jint events)
{
    ibv_ack_cq_events(PTR(struct ibv_cq, cq), (unsigned int)events);
    return 0;
}

JNIEXPORT jint JNICALL NAT(destroyCompChannel)(JNIEnv *env, jobject self, jlong channel)
{
    return ibv_destroy_comp_channel(PTR(struct ibv_comp_channel, channel)) ? -errno : 0;
}

JNIEXPORT jint JNICALL NAT(deallocPd)(JNIEnv *env, jobject self, jlong pd)
{
    int err = ibv_dealloc_pd(PTR(struct ibv_pd, pd));
    return err ? -err : 0;
}

JNIEXPORT jint JNICALL NAT(destroyCQ)(JNIEnv *env, jobject self, jlong cq)
{
    int err = ibv_destroy_cq(PTR(struct ibv_cq, cq));
    return err ? -err : 0;
}

/* The device context of a cm id, -1 while it has none (before address resolution, or a wildcard bind). */
JNIEXPORT jlong JNICALL NAT(getContext)(JNIEnv *env, jobject self, jlong id)
{
    struct ibv_context *context = PTR(struct rdma_cm_id, id)->verbs;
    return context == NULL ? -1 : HANDLE(context);
}

JNIEXPORT jint JNICALL NAT(getQpNum)(JNIEnv *env, jobject self, jlong qp)
{
    return (jint)PTR(struct ibv_qp, qp)->qp_num;
}

JNIEXPORT jint JNICALL NAT(getContextFd)(JNIEnv *env, jobject self, jlong context)
{
    return PTR(struct ibv_context, context)->cmd_fd;
}

JNIEXPORT jint JNICALL NAT(getContextNumCompVectors)(JNIEnv *env, jobject self, jlong context)
{
    return PTR(struct ibv_context, context)->num_comp_vectors;
}

JNIEXPORT jint JNICALL NAT(getPdHandle)(JNIEnv *env, jobject self, jlong pd)
{
    return (jint)PTR(struct ibv_pd, pd)->handle;
}

/* ---- layout checks -------------------------------------------------------------------------- */

JNIEXPORT jint JNICALL NAT(getSockAddrInSize)(JNIEnv *env, jobject self)
{
    return sizeof(struct sockaddr_in);
}

JNIEXPORT jint JNICALL NAT(getIbvRecvWRSize)(JNIEnv *env, jobject self)
{
    return sizeof(struct ibv_recv_wr);
}

JNIEXPORT jint JNICALL NAT(getIbvSendWRSize)(JNIEnv *env, jobject self)
{
    return sizeof(struct ibv_send_wr);
}

JNIEXPORT jint JNICALL NAT(getIbvSgeSize)(JNIEnv *env, jobject self)
{
    return sizeof(struct ibv_sge);
}

JNIEXPORT jint JNICALL NAT(getIbvWCSize)(JNIEnv *env, jobject self)
{
    return sizeof(struct ibv_wc);
}

JNIEXPORT jint JNICALL NAT(getRemoteAddressOffset)(JNIEnv *env, jobject self)
{
    return offsetof(struct ibv_send_wr, wr.rdma.remote_addr);
}

JNIEXPORT jint JNICALL NAT(getRKeyOffset)(JNIEnv *env, jobject self)
{
    return offsetof(struct ibv_send_wr, wr.rdma.rkey);
}

JNIEXPORT jint JNICALL NAT(getVersion)(JNIEnv *env, jobject self)
{
    return DISNI_JNI_VERSION;
}
