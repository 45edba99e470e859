package evals

// স্টোর MCP সার্ভারের জন্য ইভ্যাল কেস — পার্সেল হাবের ইনভেন্টরি সহকারী।
// লেখক: তানভীর হাসান (প্ল্যাটফর্ম টিম, তেজগাঁও হাব)
// prompt গুলো বাংলায় রাখা হয়েছে কারণ হাবের সুপারভাইজাররা বাংলাতেই লিখবেন।
// args এ সংখ্যা ইংরেজি অঙ্কে, prompt এ বাংলা অঙ্ক — এটা ইচ্ছাকৃত।

import (
	"context"
	"testing"
	"time"

	"git.example.com/hub-platform/mcpeval"
)

type wantCall struct {
	tool string
	args map[string]any
}

func TestStoreAssistant(t *testing.T) {
	srv := mcpeval.StartServer(t, "store", mcpeval.WithFixture("testdata/hub_tejgaon.json"))
	defer srv.Close()

	cases := []struct {
		name    string
		prompt  string
		want    []wantCall
		forbid  []string // এই টুলগুলো কোনোভাবেই কল হবে না
		noTools bool     // true হলে কোনো টুলই কল হবে না, সরাসরি উত্তর
		skip    string
	}{
		{
			name:   "ক্যাটালগে কার্টন খোঁজা",
			prompt: "ক্যাটালগে ডাবল-ওয়াল কার্টন খুঁজে দাও, সর্বোচ্চ ৮টা ফলাফল",
			want:   []wantCall{{"search-items", map[string]any{"query": "ডাবল-ওয়াল কার্টন", "limit": 8}}},
		},
		{
			name:   "একটা আইটেমের বিস্তারিত",
			prompt: "PKG-20931 আইটেমটার বিস্তারিত দেখাও তো",
			want:   []wantCall{{"get-item", map[string]any{"id": "PKG-20931"}}},
		},
		{
			name:   "নতুন প্যাকেজিং আইটেম",
			prompt: "নতুন আইটেম যোগ করো: বাবল মোড়ক রোল ৫০ মিটার, ট্যাগ প্যাকেজিং আর ভঙ্গুর",
			want: []wantCall{{"create-item", map[string]any{
				"name": "বাবল মোড়ক রোল ৫০ মিটার",
				"tags": []string{"প্যাকেজিং", "ভঙ্গুর"},
			}}},
		},
		{
			name:   "ঢাকার সময়",
			prompt: "এখন ঢাকায় কয়টা বাজে? রাতের শিফট কখন শুরু হবে হিসাব করব",
			want:   []wantCall{{"get-time", map[string]any{"timezone": "Asia/Dhaka"}}},
		},
		{
			name:   "চট্টগ্রাম হাবের আবহাওয়া",
			prompt: "চট্টগ্রামে এখন আবহাওয়া কেমন? ট্রাক ছাড়ব কিনা ভাবছি",
			want:   []wantCall{{"get-weather", map[string]any{"city": "Chattogram"}}},
		},
		{
			// যোগফলের জন্য stats টুল না, শুধু যোগের টুল
			name:   "দুই হাবের পার্সেল যোগ",
			prompt: "গাজীপুর থেকে ৩৪২টা আর নারায়ণগঞ্জ থেকে ২১৮টা পার্সেল এসেছে, মোট কত?",
			want:   []wantCall{{"get-sum", map[string]any{"a": 342, "b": 218}}},
			forbid: []string{"get-stats"},
		},
		{
			name:    "সাধারণ প্রশ্ন",
			prompt:  "COD মানে কী? নতুন রাইডারকে বোঝাতে হবে",
			noTools: true,
		},
		{
			name:   "পেজিনেশন কার্সর",
			prompt: "ক্যাটালগের পরের পাতা দেখাও",
			want:   []wantCall{{"list-items", map[string]any{"cursor": "c2"}}},
			skip:   "পরে করব — cursor নিয়ে সার্ভারে বাগ আছে (HUB-431)",
		},
		// {
		//     name:   "সার্ভার ক্র্যাশ",
		//     prompt: "সার্ভারটা ক্র্যাশ করিয়ে দেখাও",
		//     want:   []wantCall{{"crash", nil}},
		// },  // বাদ — রাকিব ভাই বললেন এটা ইভ্যালে রাখার মানে নেই
		{
			name:   "স্টক দেখা, মুছবে না",
			prompt: "PKG-11870 আইটেমটা কি এখনো ক্যাটালগে আছে? দেখো শুধু, মুছে ফেলো না",
			want:   []wantCall{{"get-item", map[string]any{"id": "PKG-11870"}}},
			forbid: []string{"delete-item"},
		},
	}

	for _, tc := range cases {
		tc := tc
		t.Run(tc.name, func(t *testing.T) {
			if tc.skip != "" {
				t.Skip(tc.skip)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()

			got := mcpeval.Ask(ctx, t, srv, tc.prompt)
			if tc.noTools {
				if len(got.Calls) != 0 {
					t.Fatalf("কোনো টুল কল হওয়ার কথা না, হয়েছে: %v", got.ToolNames())
				}
				return
			}
			for _, w := range tc.want {
				got.RequireCall(t, w.tool, w.args)
			}
			for _, f := range tc.forbid {
				got.RequireNoCall(t, f)
			}
		})
	}
}
