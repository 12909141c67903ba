# Flow sizes of the web search workload (DCTCP, SIGCOMM 2010), as the HPCC
# work's traffic generator ships them: "<size in bytes> <CDF in percent>",
# piecewise linear between the points. Mean about 1.6 MB; half the flows
# under 84 KB, most bytes in flows over 1 MB.
0 0
10000 15
20000 20
30000 30
50000 40
80000 53
200000 60
1000000 70
2000000 80
5000000 90
10000000 97
30000000 100
