#pragma once
// The DeepFM data pipeline in one include: table (table.h), synthetic generation (synthetic.h),
// TSV files (tsv.h), cleaning (cleaning.h), encoding (encode.h), the split and class weights
// (split.h), the whole preprocessing (preprocess.h), batches (batches.h) and the prefetch loader
// (prefetch_loader.h).
#include "models/deepfm/data/batches.h"
#include "models/deepfm/data/cleaning.h"
#include "models/deepfm/data/encode.h"
#include "models/deepfm/data/labels.h"
#include "models/deepfm/data/prefetch_loader.h"
#include "models/deepfm/data/preprocess.h"
#include "models/deepfm/data/split.h"
#include "models/deepfm/data/synthetic.h"
#include "models/deepfm/data/table.h"
#include "models/deepfm/data/tsv.h"
