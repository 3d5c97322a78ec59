// Internal: explicit instantiation for every value type balsa supports.
#pragma once
#define BALSA_FOR_EACH_VALUE_TYPE(M) M(float) M(double)
