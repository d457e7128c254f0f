# API time (submit to reap, one op in flight) vs the device's engine time
# (CQE engine_ns, descriptor fetch to CQE post), by size.
# Data: datafile columns: size api_p50_us engine_p50_us api_avg_us engine_avg_us
load scriptdir.'/common.gp'
set title "Where the time goes: API round trip vs device engine time, by size\n{/*0.8 ".subtitle."}"
set xlabel 'operation size (bytes, log scale)'
set ylabel 'time per operation (µs, log scale)'
set logscale xy
@sizetics
set xrange [6:1400000]
set format y '%g'
plot datafile using 1:2 with linespoints ls 1 title 'API: submit to reap (median)', \
     datafile using 1:3 with linespoints ls 2 title 'engine: fetch to CQE (median)', \
     datafile using 1:($2-$3) with linespoints ls 3 title 'difference: doorbell, scheduling, polling'
