#include "trace/trace-hw_axon.h"
