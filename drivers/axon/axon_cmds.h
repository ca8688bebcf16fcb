/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* axon admin commands: one typed wrapper per command, no verbs objects. */
#ifndef _AXON_CMDS_H_
#define _AXON_CMDS_H_

#include <axon/axon_dev.h>

#include "axon_admin.h"

int axon_cmd_query_device(struct axon_admin_queue *aq,
			  struct axon_dev_attr *attr);
int axon_cmd_query_port(struct axon_admin_queue *aq, u32 port,
			struct axon_port_attr *attr);
int axon_cmd_create_pd(struct axon_admin_queue *aq, u32 *pdn);
int axon_cmd_destroy_pd(struct axon_admin_queue *aq, u32 pdn);
int axon_cmd_set_gid(struct axon_admin_queue *aq, u32 port, u32 index,
		     enum axon_gid_type type, const u8 *gid);

#endif /* _AXON_CMDS_H_ */
