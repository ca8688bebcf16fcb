# The devices of the fuzzing build (qemu-model/build-qemu fuzz): the q35
# machine the targets run on and the two axon models, nothing else, so
# the sanitized build stays small and coverage is the models'.
CONFIG_Q35=y
CONFIG_AXON_NIC=y
CONFIG_AXON_GPU=y
