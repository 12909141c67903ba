# Flow sizes of Facebook's Hadoop cluster (Roy et al., SIGCOMM 2015), as the
# HPCC work's traffic generator ships them: "<size in bytes> <CDF in
# percent>", piecewise linear between the points. Mostly small flows.
0 0
100 1
200 2
300 5
350 15
400 20
500 30
600 40
700 50
1000 60
2000 67
7000 70
30000 72
50000 82
80000 87
120000 90
300000 95
1000000 97.5
2000000 99
10000000 100
