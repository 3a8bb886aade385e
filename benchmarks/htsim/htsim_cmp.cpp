// The htsim side of `make bench-htsim`: dcsim's two comparison cases, built from htsim's own
// library classes (DCTCPSrc, TcpSink, ECNQueue, Queue, Pipe, FatTreeTopology) at
// Broadcom/csg-htsim 841d9e7; nothing in htsim is changed.
//
//   htsim_cmp star [SECONDS]          21 hosts on one switch: hosts 1..20 each send one long
//                                     DCTCP flow to host 0; 1 Gb/s links, 25 us each, switch
//                                     ports of 400 packets, K = 20 packets, 1500-B packets, 10 s.
//   htsim_cmp fattree PAIRS [SECONDS] k = 12 fat-tree (432 hosts), 10 Gb/s, 1 us per hop,
//                                     100-packet ECN queues (K = 15, FatTreeTopology's own),
//                                     one long DCTCP flow per "src dst" line of PAIRS, 0.1 s.
//
// Prints one JSON line: events (calls of EventList::doNextEvent that ran one) and
// data_packets (bytes acknowledged at the sinks / 1500: htsim's packet is its MSS).
#include "config.h"
#include <iostream>
#include <fstream>
#include <sstream>
#include <string.h>
#include <vector>
#include "network.h"
#include "pipe.h"
#include "queue.h"
#include "ecnqueue.h"
#include "eventlist.h"
#include "tcp.h"
#include "dctcp.h"
#include "fat_tree_topology.h"

EventList eventlist;

struct Flow { TcpSrc* src; TcpSink* snk; };

int main(int argc, char** argv) {
    if (argc < 2) { cerr << "usage: htsim_cmp star [SECONDS] | fattree PAIRS [SECONDS]" << endl; return 1; }
    Packet::set_packet_size(1500);   // htsim: data packet = 1500 B on the wire, mss = 1500
    srand(1);
    string mode = argv[1];
    double sim_s = 0;
    vector<Flow> flows;
    TcpRtxTimerScanner rtx(timeFromMs(10), eventlist);

    if (mode == "star") {
        sim_s = argc > 2 ? atof(argv[2]) : 10.0;
        const int N = 21;
        linkspeed_bps speed = speedFromMbps((uint64_t)1000);
        simtime_picosec delay = timeFromUs((uint32_t)25);
        // host NIC queues (host -> switch), 1000 pkts like htsim's fat-tree FEEDER_BUFFER
        vector<Queue*> nic(N); vector<Pipe*> up(N);
        // switch output ports (switch -> host): 400 pkts, ECN mark on dequeue when > K=20 pkts
        vector<Queue*> port(N); vector<Pipe*> down(N);
        for (int h = 0; h < N; h++) {
            nic[h] = new Queue(speed, memFromPkt(1000), eventlist, NULL);
            nic[h]->setName("nic" + ntoa(h));
            up[h] = new Pipe(delay, eventlist);
            port[h] = new ECNQueue(speed, memFromPkt(400), eventlist, NULL, memFromPkt(20));
            port[h]->setName("port" + ntoa(h));
            down[h] = new Pipe(delay, eventlist);
        }
        for (int s = 1; s < N; s++) {
            DCTCPSrc* src = new DCTCPSrc(NULL, NULL, eventlist);
            TcpSink* snk = new TcpSink();
            src->setName("dctcp_" + ntoa(s)); snk->setName("sink_" + ntoa(s));
            rtx.registerTcp(*src);
            Route* out = new Route(); out->push_back(nic[s]); out->push_back(up[s]);
            out->push_back(port[0]); out->push_back(down[0]); out->push_back(snk);
            Route* back = new Route(); back->push_back(nic[0]); back->push_back(up[0]);
            back->push_back(port[s]); back->push_back(down[s]); back->push_back(src);
            src->connect(*out, *back, *snk, 0);
            flows.push_back({src, snk});
        }
    } else if (mode == "fattree") {
        if (argc < 3) { cerr << "fattree needs PAIRS" << endl; return 1; }
        sim_s = argc > 3 ? atof(argv[3]) : 0.1;
        FatTreeTopology* top = new FatTreeTopology(432, speedFromMbps((uint64_t)10000), memFromPkt(100),
                                                   NULL, &eventlist, NULL, ECN,
                                                   timeFromUs((uint32_t)1), 0, FAIR_PRIO);
        ifstream in(argv[2]);
        uint32_t s, d;
        while (in >> s >> d) {
            vector<const Route*>* fwd = top->get_paths(s, d);
            vector<const Route*>* rev = top->get_paths(d, s);
            uint32_t choice = rand() % fwd->size();   // per-flow random path (ECMP-like), as htsim's drivers do
            DCTCPSrc* src = new DCTCPSrc(NULL, NULL, eventlist);
            TcpSink* snk = new TcpSink();
            src->setName("dctcp_" + ntoa(s) + "_" + ntoa(d)); snk->setName("sink_" + ntoa(s) + "_" + ntoa(d));
            rtx.registerTcp(*src);
            Route* out = new Route(*fwd->at(choice)); out->push_back(snk);
            Route* back = new Route(*rev->at(choice)); back->push_back(src);
            src->connect(*out, *back, *snk, 0);
            flows.push_back({src, snk});
        }
    } else { cerr << "unknown mode" << endl; return 1; }

    eventlist.setEndtime(timeFromSec(sim_s));
    uint64_t events = 0;
    while (eventlist.doNextEvent()) events++;

    uint64_t acked = 0, sent = 0, drops = 0;
    for (auto& f : flows) {
        acked += f.snk->_cumulative_ack;
        sent += f.src->_packets_sent;
        drops += f.src->_drops;
    }
    uint64_t data_packets = acked / Packet::data_packet_size();
    printf("{\"sim\":\"htsim\",\"mode\":\"%s\",\"simulated_s\":%g,\"flows\":%zu,\"events\":%llu,"
           "\"data_packets\":%llu,\"bytes_acked\":%llu,\"packets_sent_bytes\":%llu,\"drops\":%llu}\n",
           mode.c_str(), sim_s, flows.size(), (unsigned long long)events,
           (unsigned long long)data_packets, (unsigned long long)acked,
           (unsigned long long)sent, (unsigned long long)drops);
    return 0;
}
