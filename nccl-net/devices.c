// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The devices NCCL sees. Each axon RDMA device with a RoCEv2 IPv4 GID is a
 * NIC. A NIC whose port has one plane is one device. A NIC with planes
 * (two to NCCL_NET_VDEV_MAX_DEVS) is one device a plane, all with its PCI
 * path, so NCCL's topology fuses them (NCCL_NET_MERGE_LEVEL PORT, its
 * default) with makeVDevice into a virtual device, which sprays RUD over
 * the planes; a plane device carries RC on its plane, as net_ib stripes
 * over the ports it fuses. NCCL without virtual devices (v8) gets the
 * plane devices.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport.h"

static struct axon_dev nics[MAX_NICS];
static int nnics = -1;
static struct net_dev net_devs[MAX_NET_DEVS];
/* the physical devices first, then the virtual ones makeVDevice made */
static int n_phys, n_devs;

/*
 * axondv_* live in the provider libibverbs loaded for the device
 * (libaxon-rdmav34.so). Found at run time among the loaded objects, so the
 * plugin loads where the provider is elsewhere or absent (then: RC only).
 */
struct axon_dv axon_dv;

static int find_provider(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *name = info->dlpi_name, *base = strrchr(name, '/');

	(void)size;
	if (strcmp(base ? base + 1 : name, "libaxon-rdmav34.so"))
		return 0;
	snprintf(arg, PATH_MAX, "%s", name);
	return 1;
}

static void dv_load(void)
{
	char path[PATH_MAX] = "";
	void *h;

	if (!dl_iterate_phdr(find_provider, path))
		return;
	h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return;
	axon_dv.create_qp_ex = dlsym(h, "axondv_create_qp_ex");
	axon_dv.modify_qp = dlsym(h, "axondv_modify_qp");
	axon_dv.query_qp = dlsym(h, "axondv_query_qp");
	if (!axon_dv.create_qp_ex || !axon_dv.modify_qp || !axon_dv.query_qp)
		memset(&axon_dv, 0, sizeof(axon_dv));
	/* the provider stays loaded while libibverbs holds it */
	dlclose(h);
}

/*
 * The planes of the NIC's port: the driver exports a set of counters per
 * plane in the port's hw_counters when there is more than one
 * (plane<k>_tx_pkts, k from 0), and none with one.
 */
static int nic_planes(struct axon_dev *d)
{
	char path[PATH_MAX];
	int n = 0;

	for (; n < 16; n++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/hw_counters/plane%d_tx_pkts",
			 d->name, n);
		if (access(path, F_OK))
			break;
	}
	return n ? n : 1;
}

/* the port is up (the per-plane link state is not exported: the port's
 * state is plane 0's) */
bool port_up(struct axon_dev *d)
{
	return !ibv_query_port(d->ctx, 1, &d->port) &&
	       d->port.state == IBV_PORT_ACTIVE;
}

/* the first RoCEv2 GID of port 1 that carries an IPv4 address */
static int pick_gid(struct axon_dev *d)
{
	const char *env = getenv("AXON_NCCL_GID_INDEX");
	struct ibv_gid_entry ent;

	for (int i = 0; i < d->port.gid_tbl_len; i++) {
		if (env && i != atoi(env))
			continue;
		if (ibv_query_gid_ex(d->ctx, 1, i, &ent, 0))
			continue;
		if (ent.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		if (memcmp(ent.gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12))
			continue;
		d->gid_index = i;
		memcpy(&d->gid, &ent.gid, sizeof(d->gid));
		memcpy(&d->ip, ent.gid.raw + 12, 4);
		return 0;
	}
	return -1;
}

/* dma-buf MRs are supported if fd -1 fails with EBADF, not EOPNOTSUPP */
static bool probe_dmabuf(struct axon_dev *d)
{
	struct ibv_mr *mr = ibv_reg_dmabuf_mr(d->pd, 0, PAGE, 0, -1,
					      IBV_ACCESS_LOCAL_WRITE);

	if (mr) {
		ibv_dereg_mr(mr);
		return false;
	}
	return errno == EBADF;
}

static void open_nic(struct ibv_device *ibdev)
{
	struct axon_dev *d = &nics[nnics];
	char sys[PATH_MAX];

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", ibv_get_device_name(ibdev));
	d->ctx = ibv_open_device(ibdev);
	if (!d->ctx)
		return;
	if (ibv_query_device(d->ctx, &d->attr) ||
	    ibv_query_port(d->ctx, 1, &d->port))
		goto close;
	if (pick_gid(d)) {
		AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_INIT,
			      "%s has no RoCEv2 IPv4 GID, left out", d->name);
		goto close;
	}
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		goto close;
	snprintf(sys, sizeof(sys), "/sys/class/infiniband/%s/device", d->name);
	if (!realpath(sys, d->pci_path))
		snprintf(d->pci_path, sizeof(d->pci_path), "%s", sys);
	d->dmabuf = probe_dmabuf(d);
	d->planes = nic_planes(d);
	nnics++;
	return;
close:
	ibv_close_device(d->ctx);
}

/* the NIC's devices: itself, or one a plane (NCCL fuses 4 at most) */
static void add_phys(struct axon_dev *d)
{
	int planes = d->planes <= NCCL_NET_VDEV_MAX_DEVS ? d->planes : 1;

	for (int k = 0; k < planes && n_phys < MAX_NET_DEVS; k++) {
		struct net_dev *nd = &net_devs[n_phys];

		nd->nic = d;
		nd->plane = planes > 1 ? k : -1;
		if (planes > 1)
			snprintf(nd->name, sizeof(nd->name), "%.*s_plane%d",
				 IBV_SYSFS_NAME_MAX, d->name, k);
		else
			snprintf(nd->name, sizeof(nd->name), "%.*s",
				 IBV_SYSFS_NAME_MAX, d->name);
		nd->vprops.ndevs = 1;
		nd->vprops.devs[0] = n_phys;
		n_phys++;
	}
}

nres_t devs_open(void)
{
	const char *only = getenv("AXON_NCCL_DEVICE");
	struct ibv_device **list;
	int n;

	pthread_mutex_lock(&axon_net_lock);
	if (nnics >= 0) {
		pthread_mutex_unlock(&axon_net_lock);
		return NCCL_NET_OK;
	}
	nnics = 0;
	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n && nnics < MAX_NICS; i++) {
		const char *name = ibv_get_device_name(list[i]);

		if (strncmp(name, "axon", 4) || (only && strcmp(name, only)))
			continue;
		open_nic(list[i]);
	}
	if (list)
		ibv_free_device_list(list);
	dv_load();
	for (int i = 0; i < nnics; i++)
		add_phys(&nics[i]);
	n_devs = n_phys;
	pthread_mutex_unlock(&axon_net_lock);
	AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_INIT, "RUD: %s",
		      axon_dv.create_qp_ex ? "axondv found" :
		      "no axondv in the provider");
	for (int i = 0; i < n_phys; i++)
		AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_INIT,
			      "device %d %s (%s) GID %d%s%s", i, net_devs[i].name,
			      net_devs[i].nic->pci_path,
			      net_devs[i].nic->gid_index,
			      net_devs[i].nic->dmabuf ? ", dma-buf" : "",
			      net_devs[i].plane >= 0 ? ", RC on its plane" : "");
	return NCCL_NET_OK;
}

struct net_dev *net_dev_get(int dev)
{
	struct net_dev *nd = NULL;

	pthread_mutex_lock(&axon_net_lock);
	if (dev >= 0 && dev < n_devs)
		nd = &net_devs[dev];
	pthread_mutex_unlock(&axon_net_lock);
	return nd;
}

/*
 * The transport a new send comm asks for: AXON_NCCL_TRANSPORT=rc|rud
 * forces it; unset or auto, RUD where the provider has axondv and the
 * device is a port of more than one plane, else RC. A plane device
 * carries RC only: RUD sprays over every plane of the port.
 */
nres_t transport_wanted(const struct net_dev *nd, enum transport *t)
{
	const char *env = getenv("AXON_NCCL_TRANSPORT");
	struct axon_dev *d = nd->nic;
	int planes;

	*t = TRANSPORT_RC;
	if (env && *env && strcmp(env, "rc") && strcmp(env, "rud") &&
	    strcmp(env, "auto")) {
		AXON_NET_WARN("AXON_NCCL_TRANSPORT=%s: rc, rud or auto", env);
		return NCCL_NET_INVALID_USAGE;
	}
	if (nd->plane >= 0) {
		if (env && !strcmp(env, "rud")) {
			AXON_NET_WARN("AXON_NCCL_TRANSPORT=rud: %s is one plane, RUD takes the virtual device of %s's planes",
				      nd->name, d->name);
			return NCCL_NET_INVALID_USAGE;
		}
		AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_NET,
			      "%s: transport RC on plane %d", nd->name,
			      nd->plane);
		return NCCL_NET_OK;
	}
	if (env && !strcmp(env, "rc")) {
		AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_NET,
			      "%s: transport RC (AXON_NCCL_TRANSPORT=rc)",
			      nd->name);
		return NCCL_NET_OK;
	}
	if (env && !strcmp(env, "rud")) {
		if (!axon_dv.create_qp_ex) {
			AXON_NET_WARN("AXON_NCCL_TRANSPORT=rud: no axondv in the provider");
			return NCCL_NET_INVALID_USAGE;
		}
		*t = TRANSPORT_RUD;
		AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_NET,
			      "%s: transport RUD (AXON_NCCL_TRANSPORT=rud)",
			      nd->name);
		return NCCL_NET_OK;
	}
	planes = port_up(d) ? d->planes : 0;
	if (!axon_dv.create_qp_ex) {
		AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_NET,
			      "%s: transport RC (auto: no axondv in the provider)",
			      nd->name);
	} else if (planes < 2) {
		AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_NET,
			      "%s: transport RC (auto: %d plane%s, RUD wants 2 or more)",
			      nd->name, planes, planes == 1 ? "" : "s");
	} else {
		*t = TRANSPORT_RUD;
		AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_NET,
			      "%s: transport RUD (auto: axondv and %d planes)",
			      nd->name, planes);
	}
	return NCCL_NET_OK;
}

nres_t axon_net_devices(int *n)
{
	if (!n)
		return NCCL_NET_INVALID_ARGUMENT;
	pthread_mutex_lock(&axon_net_lock);
	*n = n_devs;
	pthread_mutex_unlock(&axon_net_lock);
	return NCCL_NET_OK;
}

/* the port's speed in Mbit/s from the IB speed and width codes */
static int port_mbps(const struct ibv_port_attr *p)
{
	int lane, lanes;

	switch (p->active_speed) {
	case 1: lane = 2500; break;
	case 2: lane = 5000; break;
	case 4: case 8: lane = 10000; break;
	case 16: lane = 14000; break;
	case 32: lane = 25000; break;
	case 64: lane = 50000; break;
	case 128: lane = 100000; break;
	default: lane = 10000; break;
	}
	switch (p->active_width) {
	case 2: lanes = 4; break;
	case 4: lanes = 8; break;
	case 8: lanes = 12; break;
	case 16: lanes = 2; break;
	default: lanes = 1; break;
	}
	return lane * lanes;
}

nres_t axon_net_get_properties(int dev, struct nccl_net_props_v11 *p)
{
	struct net_dev *nd = net_dev_get(dev);
	struct axon_dev *d;

	if (!nd || !p)
		return NCCL_NET_INVALID_ARGUMENT;
	d = nd->nic;
	ibv_query_port(d->ctx, 1, &d->port);
	memset(p, 0, sizeof(*p));
	p->name = nd->name;
	p->pci_path = d->pci_path;
	p->guid = d->attr.node_guid;
	p->ptr_support = NCCL_NET_PTR_HOST | (d->dmabuf ? NCCL_NET_PTR_DMABUF : 0);
	p->reg_is_global = 1;
	p->force_flush = 0;
	/* the port's speed is its planes' together */
	p->speed = port_mbps(&d->port) / (nd->plane >= 0 ? d->planes : 1);
	p->port = 1;
	p->latency = 0;
	p->max_comms = d->attr.max_qp / 2 > 0 ? d->attr.max_qp / 2 : 1;
	p->max_recvs = AXON_NET_MAX_RECVS;
	p->dev_type = NCCL_NET_DEVICE_HOST;
	p->dev_version = 0;
	p->vprops = nd->vprops;
	p->max_p2p_bytes = AXON_NET_MAX_BYTES;
	p->max_coll_bytes = AXON_NET_MAX_BYTES;
	p->max_multi_request_size = 1;
	return NCCL_NET_OK;
}

/*
 * A virtual device: one physical device is itself; two or more must be
 * every plane device of one NIC, which makes (once; asked again, the same
 * index) the device that sprays over the port's planes. Other fusions
 * (NICs together, some of a NIC's planes) are refused, and NCCL then uses
 * the physical devices.
 */
nres_t axon_net_make_vdevice(int *dev, struct nccl_net_vdev_props *props)
{
	struct axon_dev *nic = NULL;
	unsigned int seen = 0;
	nres_t ret = NCCL_NET_INVALID_USAGE;

	if (!dev || !props || props->ndevs < 1 ||
	    props->ndevs > NCCL_NET_VDEV_MAX_DEVS)
		return NCCL_NET_INVALID_ARGUMENT;
	pthread_mutex_lock(&axon_net_lock);
	for (int i = 0; i < props->ndevs; i++) {
		int k = props->devs[i];

		if (k < 0 || k >= n_phys ||
		    (net_devs[k].plane >= 0 &&
		     (seen & (1U << net_devs[k].plane)))) {
			ret = NCCL_NET_INVALID_ARGUMENT;	/* or twice */
			goto out;
		}
		if (props->ndevs == 1) {
			*dev = k;
			ret = NCCL_NET_OK;
			goto out;
		}
		if (net_devs[k].plane < 0 || (nic && net_devs[k].nic != nic)) {
			AXON_NET_WARN("makeVDevice: device %d (%s) is not a plane of %s: only one NIC's planes fuse",
				      k, net_devs[k].name,
				      nic ? nic->name : net_devs[props->devs[0]].nic->name);
			goto out;
		}
		nic = net_devs[k].nic;
		seen |= 1U << net_devs[k].plane;
	}
	if (props->ndevs != nic->planes) {
		AXON_NET_WARN("makeVDevice: %d of %s's %d planes: RUD sprays over all of them",
			      props->ndevs, nic->name, nic->planes);
		goto out;
	}
	for (int v = n_phys; v < n_devs; v++) {
		if (net_devs[v].nic == nic) {
			*dev = v;
			ret = NCCL_NET_OK;
			goto out;
		}
	}
	if (n_devs == MAX_NET_DEVS) {
		ret = NCCL_NET_INTERNAL_ERROR;
		goto out;
	}
	net_devs[n_devs] = (struct net_dev){
		.nic = nic, .plane = -1, .vprops = *props,
	};
	snprintf(net_devs[n_devs].name, sizeof(net_devs[n_devs].name), "%.*s",
		 IBV_SYSFS_NAME_MAX, nic->name);
	*dev = n_devs++;
	ret = NCCL_NET_OK;
	AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_INIT,
		      "device %d %s: the virtual device of its %d planes", *dev,
		      nic->name, nic->planes);
out:
	pthread_mutex_unlock(&axon_net_lock);
	return ret;
}

nres_t axon_net_set_net_attr(void *ctx, struct nccl_net_attr *attr)
{
	/* hints on peers and flows: nothing here depends on them */
	if (!ctx_find(ctx) || !attr)
		return NCCL_NET_INVALID_ARGUMENT;
	return NCCL_NET_OK;
}

nres_t axon_net_get_device_mr(void *comm, void *mhandle, void **dptr)
{
	(void)comm; (void)mhandle; (void)dptr;
	return NCCL_NET_INVALID_USAGE;	/* no device offload */
}

nres_t axon_net_irecv_consumed(void *recv_comm, int n, void *request)
{
	(void)recv_comm; (void)n; (void)request;
	return NCCL_NET_INVALID_USAGE;	/* no device offload */
}
