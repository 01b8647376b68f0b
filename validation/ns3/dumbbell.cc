// An aqmlab dumbbell in ns-3 (3.37, Debian's libns3-dev): N bulk TCP flows, each sender on its
// own access link to router r0, the bottleneck r0 -> r1 with the scenario's queue discipline,
// each receiver on its own access link from r1. Prints one JSON object with the metrics aqmlab
// reports for the same run (see validation/ns3/README.md and compare.py, which builds the
// command line from an aqmlab scenario).
//
// Built by compare.py: g++ -O2 -std=c++17 dumbbell.cc $(pkg-config --cflags --libs ns3-...).
//
// Measured after the warm-up, as aqmlab measures:
// - utilization: bits the bottleneck transmitted (each transmission pro rata inside the
//   window) over what it could carry;
// - drop rate: drops / (arrivals + backlog at the start of the window) at the bottleneck's
//   queue discipline (arrivals = packets enqueued + packets dropped before enqueue);
// - mean queue: time average of the packets waiting at the bottleneck (queue disc plus the
//   device's one-packet transmit queue), the packet on the wire excluded, as aqmlab counts;
// - per flow: goodput (bytes the sink received in the window), RTOs (TcpCongestionOps
//   CwndEvent CA_EVENT_LOSS, which only TcpSocketBase::ReTxTimeout raises), fast recoveries
//   (CongestionStateSet to CA_RECOVERY, only from TcpSocketBase::EnterRecovery), data
//   segments sent again (the socket's Tx trace, a segment starting below the highest byte
//   already sent), the mean RTT sample (each RttEstimator::Measurement), and the mean length
//   of the retransmission timers that expired (the socket's RTO trace: ReTxTimeout doubles
//   m_rto just before it raises CA_EVENT_LOSS, so the expired timer is the value before).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

Time g_warmup;

// Per-flow counters, filled by the traces and the congestion-control wrappers below.
struct FlowCounters
{
    uint64_t rtos = 0;
    uint64_t recoveries = 0;
    uint64_t retransmissions = 0;
    uint64_t segmentsSent = 0;
    SequenceNumber32 highestSent{0};
    bool sentAny = false;
    uint64_t rxAtWarmup = 0;
    double rttSampleSum = 0;
    uint64_t rttSamples = 0;
    Time rto;
    Time rtoBefore;
    double expiredRtoSum = 0;
};

std::vector<FlowCounters> g_flows;

bool
Measuring()
{
    return Simulator::Now() >= g_warmup;
}

} // namespace

// TcpNewReno and TcpCubic with two counters: CA_EVENT_LOSS is raised by
// TcpSocketBase::ReTxTimeout on every retransmission timeout (even when the state stays
// CA_LOSS, which the CongState trace would not show), CA_RECOVERY is entered only by
// TcpSocketBase::EnterRecovery. Behaviour is the base class's.
#define COUNTED_CC(NAME, BASE)                                                                     \
    class NAME : public BASE                                                                       \
    {                                                                                              \
      public:                                                                                      \
        static TypeId GetTypeId()                                                                  \
        {                                                                                          \
            static TypeId tid = TypeId("ns3::" #NAME)                                              \
                                    .SetParent<BASE>()                                             \
                                    .SetGroupName("Internet")                                      \
                                    .AddConstructor<NAME>();                                       \
            return tid;                                                                            \
        }                                                                                          \
        NAME() = default;                                                                          \
        NAME(const NAME& other) = default;                                                         \
        std::string GetName() const override                                                       \
        {                                                                                          \
            return #NAME;                                                                          \
        }                                                                                          \
        void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override \
        {                                                                                          \
            if (event == TcpSocketState::CA_EVENT_LOSS && Measuring() && flow >= 0)                \
            {                                                                                      \
                g_flows[flow].rtos++;                                                              \
                g_flows[flow].expiredRtoSum += g_flows[flow].rtoBefore.GetSeconds();               \
            }                                                                                      \
            BASE::CwndEvent(tcb, event);                                                           \
        }                                                                                          \
        void CongestionStateSet(Ptr<TcpSocketState> tcb,                                           \
                                const TcpSocketState::TcpCongState_t newState) override            \
        {                                                                                          \
            if (newState == TcpSocketState::CA_RECOVERY && Measuring() && flow >= 0)               \
            {                                                                                      \
                g_flows[flow].recoveries++;                                                        \
            }                                                                                      \
            BASE::CongestionStateSet(tcb, newState);                                               \
        }                                                                                          \
        Ptr<TcpCongestionOps> Fork() override                                                      \
        {                                                                                          \
            return CopyObject<NAME>(this);                                                         \
        }                                                                                          \
        int flow = -1;                                                                             \
    };

COUNTED_CC(CountedNewReno, TcpNewReno)
COUNTED_CC(CountedCubic, TcpCubic)

// RttMeanDeviation, recording each sample of its socket's flow (the estimate is unchanged).
class RecordedRtt : public RttMeanDeviation
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RecordedRtt")
                                .SetParent<RttMeanDeviation>()
                                .SetGroupName("Internet")
                                .AddConstructor<RecordedRtt>();
        return tid;
    }

    RecordedRtt() = default;
    RecordedRtt(const RecordedRtt& other) = default;

    void Measurement(Time m) override
    {
        if (flow >= 0 && Measuring())
        {
            g_flows[flow].rttSampleSum += m.GetSeconds();
            g_flows[flow].rttSamples++;
        }
        RttMeanDeviation::Measurement(m);
    }

    Ptr<RttEstimator> Copy() const override
    {
        return CopyObject<RecordedRtt>(this);
    }

    int flow = -1;
};

namespace
{

// The time average of a count (packets waiting) from the start of the window.
struct TimeAverage
{
    double area = 0;
    Time last;
    double value = 0;
    Time start;

    void Set(double v)
    {
        Time now = Simulator::Now();
        if (now > start)
        {
            area += value * (now - std::max(last, start)).GetSeconds();
        }
        last = now;
        value = v;
    }

    double Mean(Time end)
    {
        Set(value);
        double span = (end - start).GetSeconds();
        return span > 0 ? area / span : 0;
    }
};

TimeAverage g_qdiscLen;
TimeAverage g_devLen;
uint32_t g_qdiscNow = 0;
uint32_t g_devNow = 0;
uint64_t g_arrivals = 0;
uint64_t g_dropsBefore = 0;
uint64_t g_dropsAfter = 0;
uint64_t g_backlogAtStart = 0;
double g_busySeconds = 0;
DataRate g_btlRate;
Time g_stop;

void
OnQdiscLen(uint32_t, uint32_t v)
{
    g_qdiscNow = v;
    g_qdiscLen.Set(v);
}

void
OnDevLen(uint32_t, uint32_t v)
{
    g_devNow = v;
    g_devLen.Set(v);
}

void
OnEnqueue(Ptr<const QueueDiscItem>)
{
    if (Measuring())
    {
        g_arrivals++;
    }
}

void
OnDropBefore(Ptr<const QueueDiscItem>, const char*)
{
    if (Measuring())
    {
        g_arrivals++;
        g_dropsBefore++;
    }
}

void
OnDropAfter(Ptr<const QueueDiscItem>, const char*)
{
    if (Measuring())
    {
        g_dropsAfter++;
    }
}

// A transmission on the bottleneck: its share inside [warm-up, stop] is busy time.
void
OnPhyTxBegin(Ptr<const Packet> p)
{
    double begin = Simulator::Now().GetSeconds();
    double end = begin + g_btlRate.CalculateBytesTxTime(p->GetSize()).GetSeconds();
    double lo = std::max(begin, g_warmup.GetSeconds());
    double hi = std::min(end, g_stop.GetSeconds());
    if (hi > lo)
    {
        g_busySeconds += hi - lo;
    }
}

void
OnRto(int flow, Time oldValue, Time newValue)
{
    g_flows[flow].rtoBefore = oldValue;
    g_flows[flow].rto = newValue;
}

void
OnTx(int flow, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    FlowCounters& f = g_flows[flow];
    SequenceNumber32 end = h.GetSequenceNumber() + p->GetSize();
    bool again = f.sentAny && h.GetSequenceNumber() < f.highestSent;
    if (Measuring())
    {
        f.segmentsSent++;
        if (again)
        {
            f.retransmissions++;
        }
    }
    if (!f.sentAny || end > f.highestSent)
    {
        f.highestSent = end;
    }
    f.sentAny = true;
}

// BulkSendApplication makes its socket when it starts: hook the counters to it then.
void
HookSocket(Ptr<BulkSendApplication> app, int flow)
{
    Ptr<TcpSocketBase> sock = DynamicCast<TcpSocketBase>(app->GetSocket());
    NS_ABORT_MSG_IF(!sock, "flow " << flow << ": no TCP socket");
    sock->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, flow));
    sock->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, flow));
    // The socket's estimator has taken no sample yet (the SYN's comes a round trip later):
    // a recording one, with ns-3's defaults, takes its place.
    Ptr<RecordedRtt> rtt = CreateObject<RecordedRtt>();
    rtt->flow = flow;
    sock->SetRtt(rtt);
    PointerValue cc;
    sock->GetAttribute("CongestionOps", cc);
    if (auto c = DynamicCast<CountedNewReno>(cc.Get<TcpCongestionOps>()))
    {
        c->flow = flow;
    }
    else if (auto c = DynamicCast<CountedCubic>(cc.Get<TcpCongestionOps>()))
    {
        c->flow = flow;
    }
    else
    {
        NS_ABORT_MSG("flow " << flow << ": unexpected congestion control");
    }
}

std::vector<std::string>
Split(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        if (!item.empty())
        {
            out.push_back(item);
        }
    }
    return out;
}

// One value per flow from a comma-separated list: one value for all, or cycled, as aqmlab's
// one-or-many fields.
std::vector<uint64_t>
PerFlow(const std::string& s, uint32_t n, const char* name)
{
    auto items = Split(s);
    NS_ABORT_MSG_IF(items.empty(), "--" << name << " is empty");
    std::vector<uint64_t> out;
    for (uint32_t i = 0; i < n; i++)
    {
        out.push_back(std::stoull(items[i % items.size()]));
    }
    return out;
}

std::string
Num(double x)
{
    if (!std::isfinite(x))
    {
        return "null";
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10g", x);
    return buf;
}

} // namespace

int
main(int argc, char* argv[])
{
    auto wallStart = std::chrono::steady_clock::now();
    uint32_t run = 1;
    uint32_t nFlows = 2;
    std::string accessRates = "100000000";
    std::string accessDelays = "1000000";
    std::string rxAccessRates = "100000000";
    std::string rxAccessDelays = "1000000";
    uint32_t accessLimit = 1000;
    uint32_t rxAccessLimit = 1000;
    uint64_t btlRate = 10000000;
    uint64_t btlDelayNs = 100000000;
    std::string queue = "droptail";
    uint32_t limit = 50;
    double redMinTh = 5;
    double redMaxTh = 15;
    double redQw = 0.002;
    double redMaxP = 0.1;
    bool redGentle = true;
    bool redWait = true;
    uint32_t redMeanPktSize = 500;
    uint64_t aqmTargetNs = 5000000;
    uint64_t aqmIntervalNs = 100000000;
    uint32_t codelMinBytes = 1500;
    uint64_t pieTupdateNs = 15000000;
    double pieA = 0.125;
    double pieB = 1.25;
    uint64_t pieMaxBurstNs = 150000000;
    uint32_t pieMeanPktSize = 1000;
    uint32_t pieDqThreshold = 16384;
    bool pieDequeueRateEstimator = false;
    uint32_t fqFlows = 1024;
    uint32_t fqDropBatch = 64;
    uint32_t fqQuantum = 1514;
    std::string cc = "newreno";
    bool sack = true;
    bool timestamps = false;
    uint32_t delAckCount = 2;
    uint64_t delAckTimeoutNs = 100000000;
    uint32_t initialCwnd = 2;
    uint64_t initialSsthresh = 0;
    uint64_t minRtoNs = 1000000000;
    uint64_t connTimeoutNs = 3000000000;
    uint32_t segSize = 1000;
    uint64_t rcvBuf = 131072;
    uint64_t sndBuf = 131072;
    uint32_t dupThresh = 3;
    bool limitedTransmit = true;
    std::string prrBound = "SSRB";
    double cubicBeta = 0.7;
    double cubicC = 0.4;
    bool cubicFastConvergence = true;
    std::string starts = "0";
    uint64_t durationNs = 100000000000ULL;
    uint64_t warmupNs = 10000000000ULL;

    CommandLine cmd(__FILE__);
    cmd.AddValue("run", "ns-3 run number (the seed of compare.py)", run);
    cmd.AddValue("flows", "number of flows (one sender and one receiver each)", nFlows);
    cmd.AddValue("accessRates", "sender access rates, b/s, comma-separated", accessRates);
    cmd.AddValue("accessDelays", "sender access delays, ns, comma-separated", accessDelays);
    cmd.AddValue("rxAccessRates", "receiver access rates, b/s", rxAccessRates);
    cmd.AddValue("rxAccessDelays", "receiver access delays, ns", rxAccessDelays);
    cmd.AddValue("accessLimit", "sender access queue, packets", accessLimit);
    cmd.AddValue("rxAccessLimit", "receiver access queue, packets", rxAccessLimit);
    cmd.AddValue("btlRate", "bottleneck rate, b/s", btlRate);
    cmd.AddValue("btlDelay", "bottleneck delay, ns", btlDelayNs);
    cmd.AddValue("queue", "droptail | red | codel | pie | fq_codel", queue);
    cmd.AddValue("limit", "bottleneck queue limit, packets", limit);
    cmd.AddValue("redMinTh", "RED min_th, packets", redMinTh);
    cmd.AddValue("redMaxTh", "RED max_th, packets", redMaxTh);
    cmd.AddValue("redQw", "RED w_q", redQw);
    cmd.AddValue("redMaxP", "RED max_p", redMaxP);
    cmd.AddValue("redGentle", "gentle RED", redGentle);
    cmd.AddValue("redWait", "RED wait", redWait);
    cmd.AddValue("redMeanPktSize", "RED mean packet size, bytes", redMeanPktSize);
    cmd.AddValue("aqmTarget", "CoDel / PIE / FQ-CoDel target, ns", aqmTargetNs);
    cmd.AddValue("aqmInterval", "CoDel / FQ-CoDel interval, ns", aqmIntervalNs);
    cmd.AddValue("codelMinBytes", "CoDel MinBytes (aqmlab mtu)", codelMinBytes);
    cmd.AddValue("pieTupdate", "PIE t_update, ns", pieTupdateNs);
    cmd.AddValue("pieA", "PIE alpha", pieA);
    cmd.AddValue("pieB", "PIE beta", pieB);
    cmd.AddValue("pieMaxBurst", "PIE max_burst, ns", pieMaxBurstNs);
    cmd.AddValue("pieMeanPktSize", "PIE mean packet size, bytes", pieMeanPktSize);
    cmd.AddValue("pieDqThreshold", "PIE dequeue threshold, bytes", pieDqThreshold);
    cmd.AddValue("pieDequeueRateEstimator",
                 "PIE delay from the departure rate (else from timestamps)",
                 pieDequeueRateEstimator);
    cmd.AddValue("fqFlows", "FQ-CoDel flow queues", fqFlows);
    cmd.AddValue("fqDropBatch", "FQ-CoDel drop batch", fqDropBatch);
    cmd.AddValue("fqQuantum", "FQ-CoDel quantum, bytes", fqQuantum);
    cmd.AddValue("cc", "newreno | cubic", cc);
    cmd.AddValue("sack", "SACK", sack);
    cmd.AddValue("timestamps", "timestamps option", timestamps);
    cmd.AddValue("delAckCount", "segments per ACK (1 = no delayed ACK)", delAckCount);
    cmd.AddValue("delAckTimeout", "delayed-ACK timeout, ns", delAckTimeoutNs);
    cmd.AddValue("initialCwnd", "initial window, segments", initialCwnd);
    cmd.AddValue("initialSsthresh", "initial ssthresh, bytes (0 = ns-3's default)", initialSsthresh);
    cmd.AddValue("minRto", "minimum RTO, ns", minRtoNs);
    cmd.AddValue("connTimeout", "SYN retransmission timeout, ns", connTimeoutNs);
    cmd.AddValue("segSize", "segment (payload) size, bytes", segSize);
    cmd.AddValue("rcvBuf", "receive buffer, bytes (the advertised window)", rcvBuf);
    cmd.AddValue("sndBuf", "send buffer, bytes", sndBuf);
    cmd.AddValue("dupThresh", "duplicate ACK threshold", dupThresh);
    cmd.AddValue("limitedTransmit", "limited transmit", limitedTransmit);
    cmd.AddValue("prrBound", "PRR reduction bound: SSRB | CRB", prrBound);
    cmd.AddValue("cubicBeta", "CUBIC beta", cubicBeta);
    cmd.AddValue("cubicC", "CUBIC C", cubicC);
    cmd.AddValue("cubicFastConvergence", "CUBIC fast convergence", cubicFastConvergence);
    cmd.AddValue("starts", "start times of the flows, ns, comma-separated", starts);
    cmd.AddValue("duration", "simulated time, ns", durationNs);
    cmd.AddValue("warmup", "warm-up, ns", warmupNs);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);
    g_warmup = NanoSeconds(warmupNs);
    g_stop = NanoSeconds(durationNs);
    g_btlRate = DataRate(btlRate);
    g_flows.assign(nFlows, FlowCounters());

    // TCP: TcpSocketBase with TcpPrrRecovery (ns-3.37's default recovery).
    TypeId ccType = cc == "cubic" ? CountedCubic::GetTypeId() : CountedNewReno::GetTypeId();
    NS_ABORT_MSG_IF(cc != "cubic" && cc != "newreno", "--cc must be newreno or cubic");
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(ccType));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpPrrRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpPrrRecovery::ReductionBound", StringValue(prrBound));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segSize));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initialCwnd));
    if (initialSsthresh > 0)
    {
        Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold",
                           UintegerValue(initialSsthresh));
    }
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAckCount));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(NanoSeconds(delAckTimeoutNs)));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rcvBuf));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sndBuf));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(NanoSeconds(connTimeoutNs)));
    // aqmlab's senders never give up; ns-3's close the connection after DataRetries (6)
    // timeouts in a row without a new ACK (TcpSocketBase::ReTxTimeout), which happens at
    // N = 1000.
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000000));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(NanoSeconds(minRtoNs)));
    Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold", UintegerValue(dupThresh));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(limitedTransmit));
    Config::SetDefault("ns3::TcpCubic::Beta", DoubleValue(cubicBeta));
    Config::SetDefault("ns3::TcpCubic::C", DoubleValue(cubicC));
    Config::SetDefault("ns3::TcpCubic::FastConvergence", BooleanValue(cubicFastConvergence));
    // aqmlab's CUBIC has no HyStart of this kind (its HyStart++ is refused by compare.py).
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));

    NodeContainer senders;
    senders.Create(nFlows);
    NodeContainer routers;
    routers.Create(2);
    NodeContainer receivers;
    receivers.Create(nFlows);
    InternetStackHelper stack;
    stack.InstallAll();

    auto sRates = PerFlow(accessRates, nFlows, "accessRates");
    auto sDelays = PerFlow(accessDelays, nFlows, "accessDelays");
    auto rRates = PerFlow(rxAccessRates, nFlows, "rxAccessRates");
    auto rDelays = PerFlow(rxAccessDelays, nFlows, "rxAccessDelays");
    auto startNs = PerFlow(starts, nFlows, "starts");

    // Every device's own transmit queue holds one packet, so the queue disc above it is the
    // queue (the standard ns-3 dumbbell practice: with the default 100-packet device queue
    // the AQM would see only what overflows it). One packet can still wait there besides
    // the one on the wire; the mean queue counts it, as aqmlab counts every waiting packet.
    PointToPointHelper p2p;
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));

    Ipv4AddressHelper addr("10.0.0.0", "255.255.255.252");
    std::vector<Ipv4Address> receiverAddr(nFlows);

    auto fifo = [](uint32_t packets) {
        TrafficControlHelper tch;
        tch.SetRootQueueDisc("ns3::FifoQueueDisc",
                             "MaxSize",
                             QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, packets)));
        return tch;
    };

    // The bottleneck: the scenario's discipline on r0 -> r1; DropTail with the same limit on
    // the reverse (aqmlab's default reverse queue).
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(btlRate)));
    p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(btlDelayNs)));
    NetDeviceContainer btl = p2p.Install(routers.Get(0), routers.Get(1));
    QueueSize qsize(QueueSizeUnit::PACKETS, limit);
    TrafficControlHelper tch;
    if (queue == "droptail")
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(qsize));
    }
    else if (queue == "red")
    {
        // ns-3's RedQueueDisc is a port of ns-2's RED, aqmlab's reference: the same EWMA,
        // idle correction (ptc from LinkBandwidth and MeanPktSize), count, gentle and wait.
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize",
                             QueueSizeValue(qsize),
                             "MinTh",
                             DoubleValue(redMinTh),
                             "MaxTh",
                             DoubleValue(redMaxTh),
                             "QW",
                             DoubleValue(redQw),
                             "LInterm",
                             DoubleValue(1.0 / redMaxP),
                             "Gentle",
                             BooleanValue(redGentle),
                             "Wait",
                             BooleanValue(redWait),
                             "MeanPktSize",
                             UintegerValue(redMeanPktSize),
                             "LinkBandwidth",
                             DataRateValue(DataRate(btlRate)),
                             "LinkDelay",
                             TimeValue(NanoSeconds(btlDelayNs)));
    }
    else if (queue == "codel")
    {
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc",
                             "MaxSize",
                             QueueSizeValue(qsize),
                             "Target",
                             TimeValue(NanoSeconds(aqmTargetNs)),
                             "Interval",
                             TimeValue(NanoSeconds(aqmIntervalNs)),
                             "MinBytes",
                             UintegerValue(codelMinBytes));
    }
    else if (queue == "pie")
    {
        tch.SetRootQueueDisc("ns3::PieQueueDisc",
                             "MaxSize",
                             QueueSizeValue(qsize),
                             "QueueDelayReference",
                             TimeValue(NanoSeconds(aqmTargetNs)),
                             "Tupdate",
                             TimeValue(NanoSeconds(pieTupdateNs)),
                             "A",
                             DoubleValue(pieA),
                             "B",
                             DoubleValue(pieB),
                             "MaxBurstAllowance",
                             TimeValue(NanoSeconds(pieMaxBurstNs)),
                             "MeanPktSize",
                             UintegerValue(pieMeanPktSize),
                             "DequeueThreshold",
                             UintegerValue(pieDqThreshold),
                             "UseDequeueRateEstimator",
                             BooleanValue(pieDequeueRateEstimator));
    }
    else if (queue == "fq_codel")
    {
        uint16_t handle = tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc",
                                               "MaxSize",
                                               QueueSizeValue(qsize),
                                               "Target",
                                               StringValue(std::to_string(aqmTargetNs) + "ns"),
                                               "Interval",
                                               StringValue(std::to_string(aqmIntervalNs) + "ns"),
                                               "Flows",
                                               UintegerValue(fqFlows),
                                               "DropBatchSize",
                                               UintegerValue(fqDropBatch));
        (void)handle;
    }
    else
    {
        NS_ABORT_MSG("--queue must be droptail, red, codel, pie or fq_codel, got " << queue);
    }
    QueueDiscContainer qdiscs = tch.Install(btl.Get(0));
    fifo(limit).Install(btl.Get(1));
    Ptr<QueueDisc> qdisc = qdiscs.Get(0);
    if (queue == "fq_codel")
    {
        DynamicCast<FqCoDelQueueDisc>(qdisc)->SetQuantum(fqQuantum);
    }
    addr.Assign(btl);
    addr.NewNetwork();

    for (uint32_t i = 0; i < nFlows; i++)
    {
        p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(sRates[i])));
        p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(sDelays[i])));
        NetDeviceContainer d = p2p.Install(senders.Get(i), routers.Get(0));
        fifo(accessLimit).Install(d);
        addr.Assign(d);
        addr.NewNetwork();

        p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rRates[i])));
        p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(rDelays[i])));
        NetDeviceContainer r = p2p.Install(routers.Get(1), receivers.Get(i));
        fifo(rxAccessLimit).Install(r);
        Ipv4InterfaceContainer ifs = addr.Assign(r);
        receiverAddr[i] = ifs.GetAddress(1);
        addr.NewNetwork();
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const uint16_t port = 5000;
    std::vector<Ptr<PacketSink>> sinks(nFlows);
    for (uint32_t i = 0; i < nFlows; i++)
    {
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkHelper.Install(receivers.Get(i));
        sa.Start(Seconds(0));
        sa.Stop(g_stop);
        sinks[i] = DynamicCast<PacketSink>(sa.Get(0));

        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(receiverAddr[i], port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(segSize));
        ApplicationContainer ca = src.Install(senders.Get(i));
        Time start = NanoSeconds(startNs[i]);
        ca.Start(start);
        ca.Stop(g_stop);
        Simulator::Schedule(start + NanoSeconds(1),
                            &HookSocket,
                            DynamicCast<BulkSendApplication>(ca.Get(0)),
                            static_cast<int>(i));
    }

    // The bottleneck's queue: the queue disc's and the device's transmit queue's lengths,
    // arrivals and drops, and its transmissions.
    qdisc->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQdiscLen));
    qdisc->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnEnqueue));
    qdisc->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&OnDropBefore));
    qdisc->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&OnDropAfter));
    Ptr<PointToPointNetDevice> btlDev = DynamicCast<PointToPointNetDevice>(btl.Get(0));
    btlDev->GetQueue()->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnDevLen));
    btlDev->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnPhyTxBegin));

    Simulator::Schedule(g_warmup, [&]() {
        g_qdiscLen.start = g_warmup;
        g_qdiscLen.area = 0;
        g_qdiscLen.Set(g_qdiscNow);
        g_devLen.start = g_warmup;
        g_devLen.area = 0;
        g_devLen.Set(g_devNow);
        g_backlogAtStart = g_qdiscNow + g_devNow;
        for (uint32_t i = 0; i < nFlows; i++)
        {
            g_flows[i].rxAtWarmup = sinks[i]->GetTotalRx();
        }
    });

    Simulator::Stop(g_stop);
    Simulator::Run();

    double window = (g_stop - g_warmup).GetSeconds();
    std::vector<double> goodput(nFlows);
    double sum = 0;
    double sumSq = 0;
    for (uint32_t i = 0; i < nFlows; i++)
    {
        goodput[i] = (sinks[i]->GetTotalRx() - g_flows[i].rxAtWarmup) * 8.0 / window;
        sum += goodput[i];
        sumSq += goodput[i] * goodput[i];
    }
    double jain = sumSq > 0 ? sum * sum / (nFlows * sumSq) : NAN;
    uint64_t drops = g_dropsBefore + g_dropsAfter;
    uint64_t offered = g_arrivals + g_backlogAtStart;
    double qdiscMean = g_qdiscLen.Mean(g_stop);
    double devMean = g_devLen.Mean(g_stop);
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

    std::ostringstream out;
    out << "{\"ns3_version\": \"3.37\", \"run\": " << run << ", \"flows\": " << nFlows
        << ", \"utilization\": " << Num(g_busySeconds / window)
        << ", \"drop_rate\": " << Num(offered > 0 ? double(drops) / offered : 0.0)
        << ", \"drops\": " << drops << ", \"arrivals\": " << g_arrivals
        << ", \"mean_queue_packets\": " << Num(qdiscMean + devMean)
        << ", \"mean_qdisc_packets\": " << Num(qdiscMean) << ", \"jain_index\": " << Num(jain)
        << ", \"wall_s\": " << Num(wall) << ", \"per_flow\": [";
    for (uint32_t i = 0; i < nFlows; i++)
    {
        const FlowCounters& f = g_flows[i];
        out << (i ? ", " : "") << "{\"goodput_bps\": " << Num(goodput[i])
            << ", \"timeouts\": " << f.rtos << ", \"fast_recoveries\": " << f.recoveries
            << ", \"retransmissions\": " << f.retransmissions
            << ", \"packets_sent\": " << f.segmentsSent << ", \"mean_rtt_ms\": "
            << Num(f.rttSamples ? f.rttSampleSum / f.rttSamples * 1e3 : NAN)
            << ", \"rtt_samples\": " << f.rttSamples << ", \"mean_expired_rto_s\": "
            << Num(f.rtos ? f.expiredRtoSum / f.rtos : NAN) << "}";
    }
    out << "]}";
    std::cout << out.str() << std::endl;
    Simulator::Destroy();
    return 0;
}
