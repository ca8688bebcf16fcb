/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* axon KUnit suites: what the suites share. */
#ifndef _AXON_KUNIT_H_
#define _AXON_KUNIT_H_

#include <kunit/test.h>

/* A parameter's description: its name field. */
#define AXON_KUNIT_DESC(type)						\
static void type##_desc(const struct type *p, char *desc)		\
{									\
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);			\
}

#endif /* _AXON_KUNIT_H_ */
